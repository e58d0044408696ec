// Reads the mail the server writes as .eml files under DATA_DIR/mail/ (no SMTP_URL in tests).
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DATA_DIR } from './env.ts';

export interface Mail {
  file: string;
  headers: Record<string, string>;
  from: string;
  to: string;
  subject: string;
  /** The decoded text body (the text/plain part of a multipart/alternative message). */
  body: string;
  /** The decoded text/html part, if the message has one. */
  html: string | null;
  /** The one-time tag of a reset or invitation link in the body, if any. */
  tag: string | null;
  /** The one-time tag of a link that proves the address (/accounts/verifyemail/?tag=…), if any. */
  verifyTag: string | null;
}

function decodeQuotedPrintable(text: string): string {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i += 1) {
    const c = joined[i];
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A header value with its RFC 2047 encoded words (=?utf-8?Q?…?= / =?utf-8?B?…?=) decoded. */
function decodeHeader(value: string): string {
  return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_all, _charset, encoding: string, data: string) =>
    encoding.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : decodeQuotedPrintable(data.replace(/_/g, ' ')));
}

/** Headers and the raw body of a message or a MIME part. */
function splitPart(raw: string): { headers: Record<string, string>; rawBody: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split === -1 ? raw : raw.slice(0, split);
  const rawBody = split === -1 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n(?![ \t])/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeHeader(line.slice(colon + 1).replace(/\r?\n[ \t]+/g, ' ').trim());
  }
  return { headers, rawBody };
}

function decodeBody(headers: Record<string, string>, rawBody: string): string {
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  return encoding === 'quoted-printable'
    ? decodeQuotedPrintable(rawBody)
    : encoding === 'base64' ? Buffer.from(rawBody.replace(/\s+/g, ''), 'base64').toString('utf8') : rawBody;
}

/** Parses one .eml message (headers; a single-part text body, or the text and HTML parts of multipart/alternative). */
export function parseEml(raw: string, file = ''): Mail {
  const { headers, rawBody } = splitPart(raw);
  let body = '';
  let html: string | null = null;
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (boundary && /^multipart\//i.test(headers['content-type'] ?? '')) {
    for (const chunk of rawBody.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const part = splitPart(chunk.replace(/^\r?\n/, ''));
      const type = (part.headers['content-type'] ?? '').toLowerCase();
      const decoded = decodeBody(part.headers, part.rawBody.replace(/\r?\n$/, ''));
      if (type.startsWith('text/plain')) body = decoded;
      else if (type.startsWith('text/html')) html = decoded;
    }
  } else {
    body = decodeBody(headers, rawBody);
  }
  const tag = /\/accounts\/resetpassword\/\?tag=([A-Za-z0-9_%-]+)/.exec(body)?.[1];
  const verifyTag = /\/accounts\/verifyemail\/\?tag=([A-Za-z0-9_%-]+)/.exec(body)?.[1];
  return {
    file,
    headers,
    from: headers.from ?? '',
    to: headers.to ?? '',
    subject: headers.subject ?? '',
    body,
    html,
    tag: tag ? decodeURIComponent(tag) : null,
    verifyTag: verifyTag ? decodeURIComponent(verifyTag) : null,
  };
}

/** The links of an HTML mail: each <a>'s text and href (entities decoded), in order. */
export function linksIn(html: string): { text: string; href: string }[] {
  const decode = (s: string) => s.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"');
  return [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi)]
    .map((m) => ({ href: decode(m[1]), text: decode(m[2].replace(/<[^>]+>/g, '')).trim() }));
}

/** The addresses of an address header ("a@x, Name <b@y>"), lower-cased. */
function addresses(header: string): string[] {
  return header.split(',').map((part) => (/<([^>]+)>/.exec(part)?.[1] ?? part).trim().toLowerCase()).filter(Boolean);
}

/** The folder a server writes its mail to. */
export function mailDir(dataDir = DATA_DIR): string {
  return path.join(dataDir, 'mail');
}

/** Every message delivered so far to `to` (case-insensitive), oldest first. */
export function mailTo(to: string, dataDir = DATA_DIR): Mail[] {
  const dir = mailDir(dataDir);
  let files: string[];
  try {
    files = fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();
  } catch {
    return [];
  }
  const found: Mail[] = [];
  for (const file of files) {
    const full = path.join(dir, file);
    let mail = parsed.get(full);
    if (!mail) {
      let raw: string;
      try {
        raw = fs.readFileSync(full, 'utf8');
      } catch {
        continue;
      }
      mail = parseEml(raw, full);
      parsed.set(full, mail); // a delivered .eml never changes (it is renamed into place whole)
    }
    if (addresses(mail.to).includes(to.toLowerCase())) found.push(mail);
  }
  return found;
}

const parsed = new Map<string, Mail>();

const taken = new Set<string>();

/**
 * Waits for the next message to `to` this process has not read yet, and returns it
 * parsed. Fails after `timeoutMs` (the mail worker retries every MAIL_RETRY_SECONDS).
 */
export async function readMail(to: string, options: { timeoutMs?: number; dataDir?: string; subject?: RegExp } = {}): Promise<Mail> {
  const { timeoutMs = 60_000, dataDir = DATA_DIR, subject } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = mailTo(to, dataDir).find((m) => !taken.has(m.file) && (!subject || subject.test(m.subject)));
    if (mail) {
      taken.add(mail.file);
      return mail;
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to}${subject ? ` with subject ${subject}` : ''} arrived in ${mailDir(dataDir)} within ${timeoutMs} ms`);
    await sleep(100);
  }
}
