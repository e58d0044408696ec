// A file cell of the records grid (issue 25): its files with an icon or thumbnail (file-thumb.tsx), the size and a download
// link; images and PDFs open in the side panel (file-preview.tsx); files dropped on the cell,
// or picked, upload straight to it — each with a progress bar, its speed and the time left,
// and a Cancel button. Self-contained: the grid hands it the cell's data and what may be done.
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import { errorMessage } from '../../../lib/api/client';
import {
  downloadUrl, filesOfCell, formatBytes, formatDuration, previewKind, uploadToCell, UploadCancelled,
  type CellFile, type Progress,
} from '../api/files';
import { FilePreview } from './file-preview';
import { FileThumb } from './file-thumb';
import './files.css';

interface FileCellProps {
  rowSid: string;
  rowName: string;
  columnSid: string;
  columnName: string;
  /** The cell's data: its files' descriptors. */
  data: string;
  /** Why the person may not add files here; null when they may. */
  block: string | null;
  /** After an upload landed: the grid reads the row again. */
  onUploaded: () => void;
}

interface Sending {
  id: number;
  name: string;
  size: number;
  progress: Progress | null;
  error?: string;
  cancel: () => void;
}

let nextId = 1;

export function FileCell({ rowSid, rowName, columnSid, columnName, data, block, onUploaded }: FileCellProps) {
  const files = filesOfCell(data);
  const [sending, setSending] = useState<Sending[]>([]);
  const [dropping, setDropping] = useState(false);
  const [preview, setPreview] = useState<CellFile | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  const mounted = useRef(true);
  useEffect(() => () => {
    mounted.current = false;
  }, []);

  const update = (id: number, change: Partial<Sending>) =>
    mounted.current && setSending((old) => old.map((s) => (s.id === id ? { ...s, ...change } : s)));
  const remove = (id: number) => mounted.current && setSending((old) => old.filter((s) => s.id !== id));

  const send = (list: FileList | File[]) => {
    for (const file of Array.from(list)) {
      const id = nextId++;
      const upload = uploadToCell(rowSid, columnSid, file, (progress) => update(id, { progress }));
      setSending((old) => [...old, { id, name: file.name, size: file.size, progress: null, cancel: upload.cancel }]);
      upload.done.then(
        () => {
          remove(id);
          onUploaded();
        },
        (error: unknown) => (error instanceof UploadCancelled ? remove(id) : update(id, { error: errorMessage(error) })),
      );
    }
  };

  const onDragOver = (event: DragEvent<HTMLDivElement>) => {
    if (block || !Array.from(event.dataTransfer.types).includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDropping(true);
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    setDropping(false);
    if (block || !event.dataTransfer.files.length) return;
    event.preventDefault();
    send(event.dataTransfer.files);
  };
  // The grid answers keys itself; the controls inside the cell keep Enter and Space.
  const keepKeys = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target !== event.currentTarget && (event.key === 'Enter' || event.key === ' ')) event.stopPropagation();
  };

  return (
    <div
      className={`file-cell${dropping ? ' is-dropping' : ''}`}
      onDragOver={onDragOver}
      onDragLeave={() => setDropping(false)}
      onDrop={onDrop}
      onKeyDown={keepKeys}
      data-testid={`file-cell-${rowSid}-${columnSid}`}
    >
      <ul className="file-list" aria-label={`Files of ${columnName} of ${rowName}`}>
        {files.map((file) => (
          <li key={file.sid} className="file-item">
            <FileThumb file={file} />
            {previewKind(file.media_type) ? (
              <button type="button" className="file-name link-button" onClick={() => setPreview(file)} title={`Preview ${file.name}`}>
                {file.name}
              </button>
            ) : (
              <span className="file-name">{file.name}</span>
            )}
            <span className="file-size">{formatBytes(file.size)}</span>
            <a className="file-download" href={downloadUrl(file.sid, true)} download={file.name} aria-label={`Download ${file.name}`}>
              <svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true" focusable="false">
                <path d="M6 1v7M2.5 5 6 8.5 9.5 5M1.5 11h9" fill="none" stroke="currentColor" strokeWidth="1.5" />
              </svg>
            </a>
          </li>
        ))}
        {!files.length && !sending.length && <li className="muted file-empty">{block ? 'No files' : 'Drop files here'}</li>}
      </ul>
      {!block && (
        <>
          <button type="button" className="file-add" aria-label={`Add files to ${columnName} of ${rowName}`} onClick={() => picker.current?.click()}>
            +
          </button>
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            aria-hidden="true"
            tabIndex={-1}
            onChange={(event) => {
              if (event.target.files?.length) send(event.target.files);
              event.target.value = '';
            }}
          />
        </>
      )}
      {sending.length > 0 && (
        <div className="file-uploads" role="group" aria-label={`Uploads to ${columnName} of ${rowName}`}>
          {sending.map((s) => {
            const loaded = s.progress?.loaded ?? 0;
            const total = s.progress?.total ?? s.size;
            const percent = total ? Math.floor((loaded / total) * 100) : 0;
            return (
              <div key={s.id} className="file-upload">
                <span className="file-upload-name">{s.name}</span>
                {s.error ? (
                  <span role="alert" className="file-upload-error">
                    {s.error}
                  </span>
                ) : (
                  <>
                    <progress max={total || 1} value={loaded} aria-label={`Uploading ${s.name}`} />
                    <span className="file-upload-figures">
                      {percent}% · {formatBytes(loaded)} of {formatBytes(total)}
                      {s.progress && s.progress.speed > 0 && ` · ${formatBytes(s.progress.speed)}/s · ${formatDuration(s.progress.secondsLeft)} left`}
                    </span>
                  </>
                )}
                <button type="button" className="button" onClick={() => (s.error ? remove(s.id) : s.cancel())}>
                  {s.error ? 'Dismiss' : 'Cancel'}
                  <span className="visually-hidden"> {s.name}</span>
                </button>
              </div>
            );
          })}
        </div>
      )}
      {preview && createPortal(<FilePreview file={preview} onClose={() => setPreview(null)} />, document.body)}
    </div>
  );
}
