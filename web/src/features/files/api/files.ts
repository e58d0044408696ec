// Files in cells (issue 25): a file cell's data is the list of its files' descriptors
// (docs/versions.md, "File cells"); uploads go straight to a cell, one request each, with
// their progress (XMLHttpRequest: fetch reports no upload progress); downloads and previews
// read /files/file/download/{sid}/, which follows the row's rules.
import { toApiError } from '../../../lib/api/client';

/** A file as its cell (and every version that snapshots the cell) lists it. */
export interface CellFile {
  sid: string;
  name: string;
  size: number;
  media_type: string;
  sha256: string;
  uploaded_by: { sid: string; name: string };
  date_created: string;
}

/** The widget kind of file columns. */
export const FILE_KIND = 'file';

/** The files a file cell's data lists ([] for an empty or foreign value). */
export function filesOfCell(data: string | undefined | null): CellFile[] {
  if (!data) return [];
  try {
    const parsed: unknown = JSON.parse(data);
    return Array.isArray(parsed)
      ? parsed.filter((f): f is CellFile => Boolean(f) && typeof f === 'object' && typeof f.sid === 'string' && typeof f.sha256 === 'string')
      : [];
  } catch {
    return [];
  }
}

/** The file's bytes: inline for images and PDF (the API decides), or always as an attachment. */
export const downloadUrl = (sid: string, attachment = false) => `/files/file/download/${encodeURIComponent(sid)}/${attachment ? '?attachment=true' : ''}`;

/** An image's thumbnail (a small WebP made in the background after the upload: 404 until then, and for other files). */
export const thumbnailUrl = (sid: string, attempt = 0) => `/files/file/thumbnail/${encodeURIComponent(sid)}/${attempt ? `?attempt=${attempt}` : ''}`;

/** Whether the side panel previews it: images and PDF (the API serves them inline; SVG never). */
export function previewKind(mediaType: string): 'image' | 'pdf' | null {
  if (mediaType === 'application/pdf') return 'pdf';
  if (/^image\/(png|jpeg|gif|webp|avif|bmp)$/.test(mediaType)) return 'image';
  return null;
}

/**
 * An icon for a media type: a short label drawn as a badge (text, not an emoji, which
 * machines without an emoji font show as a box; no image requests for a list of files).
 */
export function fileIcon(mediaType: string): string {
  if (mediaType === 'application/pdf') return 'PDF';
  if (mediaType.startsWith('image/')) return 'IMG';
  if (mediaType === 'text/csv') return 'CSV';
  if (mediaType.startsWith('text/') || mediaType === 'application/json') return 'TXT';
  if (mediaType.startsWith('audio/')) return 'AUD';
  if (mediaType.startsWith('video/')) return 'VID';
  if (/zip|compressed|tar|gzip/.test(mediaType)) return 'ZIP';
  return 'BIN';
}

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'];

/** 1536 → "1.5 KB" (powers of 1024, one decimal under 10). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${Math.max(0, Math.round(bytes || 0))} bytes`;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${UNITS[unit]}`;
}

/** 75 → "1 min 15 s"; a time left not known yet: "…". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '…';
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** How far an upload is. */
export interface Progress {
  loaded: number;
  total: number;
  /** Bytes a second since it began (0 until some arrived). */
  speed: number;
  /** Seconds left at that speed (Infinity until known). */
  secondsLeft: number;
}

/** An upload in flight: its answer (the descriptor, with the cell and version), and how to cancel it. */
export interface Upload {
  done: Promise<CellFile & { cell?: string; version?: number | null }>;
  cancel: () => void;
}

/** Cancelled by the person: not an error to show. */
export class UploadCancelled extends Error {
  constructor() {
    super('Upload cancelled.');
  }
}

/**
 * Uploads `file` straight to the row's file cell (POST /files/file/list/row/{sid}/detail/?column=):
 * one write, its version carrying the file's hash. `onProgress` is told as the bytes go.
 */
export function uploadToCell(rowSid: string, columnSid: string, file: File, onProgress: (progress: Progress) => void): Upload {
  const xhr = new XMLHttpRequest();
  const started = performance.now();
  const done = new Promise<CellFile & { cell?: string; version?: number | null }>((resolve, reject) => {
    xhr.open('POST', `/files/file/list/row/${encodeURIComponent(rowSid)}/detail/?column=${encodeURIComponent(columnSid)}`);
    xhr.withCredentials = true;
    xhr.setRequestHeader('X-Requested-With', 'records-web');
    xhr.responseType = 'text';
    xhr.upload.onprogress = (event) => {
      const seconds = (performance.now() - started) / 1000;
      const total = event.lengthComputable ? event.total : file.size;
      const speed = seconds > 0 ? event.loaded / seconds : 0;
      onProgress({ loaded: event.loaded, total, speed, secondsLeft: speed > 0 ? (total - event.loaded) / speed : Infinity });
    };
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // a plain-text answer (the spec's 406s)
      }
      if (xhr.status === 201) resolve(body as CellFile & { cell?: string; version?: number | null });
      else reject(toApiError(xhr.status, body));
    };
    xhr.onerror = () => reject(new Error('The upload failed: the connection broke. Nothing was stored; try again.'));
    xhr.onabort = () => reject(new UploadCancelled());
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
  return { done, cancel: () => xhr.abort() };
}
