// A file's media type, from its first bytes, never from what the client says (issue 25).
// file-type knows the binary formats by their magic numbers; the text formats that matter
// for safety — HTML, SVG and XML, which a browser would run — it leaves out by design, so
// they are told here by the WHATWG MIME Sniffing standard's patterns for HTML and XML
// (https://mimesniff.spec.whatwg.org/#identifying-a-resource-with-an-unknown-mime-type).
// Anything else is text/plain when it holds no binary bytes, else application/octet-stream.

/** How many of a file's first bytes the sniff reads (file-type's own sample size). */
export const SNIFF_BYTES = 4100;

const HTML_TAGS = ['!doctype html', 'html', 'head', 'script', 'iframe', 'h1', 'div', 'font', 'table', 'a', 'style', 'title', 'b', 'body', 'br', 'p', '!--'];

/** The WHATWG "binary data byte": a control byte no text holds. */
const BINARY_BYTE = (b: number) => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);

function textType(head: Buffer): string {
  let text = head.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const start = text.replace(/^[\t\n\f\r ]+/, '').toLowerCase();
  for (const tag of HTML_TAGS) {
    if (start.startsWith(`<${tag}`)) {
      const next = start.charAt(tag.length + 1);
      if (tag === '!--' || next === ' ' || next === '>' || next === '' || next === '\t' || next === '\n' || next === '\r' || next === '\f' || next === '/') return 'text/html';
    }
  }
  if (start.startsWith('<svg') || (start.startsWith('<?xml') && /<svg[\s>]/.test(start))) return 'image/svg+xml';
  if (start.startsWith('<?xml')) return 'application/xml';
  // UTF-16 text starts with its byte order mark.
  if ((head[0] === 0xfe && head[1] === 0xff) || (head[0] === 0xff && head[1] === 0xfe)) return 'text/plain';
  return head.some(BINARY_BYTE) ? 'application/octet-stream' : 'text/plain';
}

/** The media type of a file whose first bytes are `head` (at most SNIFF_BYTES of them). */
export async function sniffMediaType(head: Buffer): Promise<string> {
  if (head.length === 0) return 'application/octet-stream';
  // file-type is imported on the first upload, not at start-up.
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  // file-type names any XML application/xml: SVG among it is told apart here.
  if (!found || found.mime === 'application/xml' || found.mime === 'text/xml') return textType(head);
  return found.mime;
}

/**
 * Types a browser shows without running anything of the file's: only these are served
 * inline (images, PDF, audio, video); everything else — HTML, SVG, XML, plain text (a script is text),
 * scripts, unknown bytes — is an attachment (download.ts).
 */
const INLINE = new Set([
  'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/apng',
  'application/pdf',
  'audio/mpeg', 'audio/ogg', 'audio/wav', 'audio/x-wav', 'audio/flac', 'audio/x-flac', 'audio/webm', 'audio/aac', 'audio/mp4',
  'video/mp4', 'video/webm', 'video/ogg', 'video/quicktime',
]);

export function isInlineSafe(mediaType: string): boolean {
  return INLINE.has(mediaType);
}
