// multipart/form-data, streamed (@fastify/busboy): text fields and one file, whose bytes
// are handed on as they arrive, never gathered. The boundary normally comes in the
// Content-Type header; a client that sends `Content-Type: multipart/form-data` with no
// boundary (labii-sdk's upload overrides the header so) gets it read from the body's first
// line, "--<boundary>" CRLF, as RFC 2046 begins every multipart body.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { errors } from '../../core/errors.js';

/** RFC 2046's boundary: 1 to 70 of its characters, not ending with a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
/** The most of a body read to find its boundary line: "--", 70 characters, CRLF and then some. */
const FIRST_LINE_MAX = 128;

export interface MultipartFile {
  field: string;
  /** The file name as the client sent it (RFC 7578 filename, or filename* in UTF-8). */
  filename: string;
  stream: Readable;
  /** The text fields that came before the file part (as S3's POST upload, labii-sdk sends its fields first). */
  fields: Record<string, string>;
}

/** The client went away before its body was whole. */
export class BodyInterrupted extends Error {
  constructor() {
    super('the request body ended before it was whole');
  }
}

/** Whether a Content-Type names multipart/form-data (with or without its boundary). */
export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(contentType ?? '');
}

/** The boundary a Content-Type header gives, or undefined. */
function boundaryParameter(contentType: string): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  return match ? (match[1] ?? match[2]) : undefined;
}

/** Reads the body's first bytes, up to its first CRLF (at most FIRST_LINE_MAX); they are given back to be parsed first. */
function firstBytes(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (error?: Error) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      stream.pause();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= FIRST_LINE_MAX || Buffer.concat(chunks).includes('\r\n')) finish();
    };
    const onEnd = () => finish();
    const onError = (err: Error) => finish(err);
    const onClose = () => finish(new BodyInterrupted());
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}

/** The Content-Type busboy parses with: the header's, or with the boundary read from the body's first line. */
async function withBoundary(request: IncomingMessage): Promise<{ contentType: string; peeked: Buffer | null }> {
  const given = request.headers['content-type'] ?? '';
  const boundary = boundaryParameter(given);
  if (boundary !== undefined) {
    if (!BOUNDARY.test(boundary)) throw errors.badRequest('The multipart boundary in Content-Type is not valid (RFC 2046: 1 to 70 characters).');
    return { contentType: given, peeked: null };
  }
  const peeked = await firstBytes(request);
  const line = peeked.toString('latin1');
  const end = line.indexOf('\r\n');
  const found = end > 2 && line.startsWith('--') ? line.slice(2, end) : '';
  if (!BOUNDARY.test(found)) {
    throw errors.badRequest('Content-Type multipart/form-data has no boundary, and the body does not begin with one ("--" and the boundary, then CRLF).');
  }
  return { contentType: `multipart/form-data; boundary="${found}"`, peeked };
}

/** Text fields a multipart upload may carry besides its file, and their limits. */
const LIMITS = { fields: 20, fieldSize: 64 * 1024, fieldNameSize: 200, files: 1, parts: 21, headerPairs: 20 };

/**
 * Parses a multipart/form-data request: its text fields, and exactly one file, whose stream
 * `onFile` consumes (it must read it to its end, or throw). Resolves once the whole body
 * has been parsed; rejects with a 400 for a malformed body, none or several files, with
 * BodyInterrupted when the client goes away, or with onFile's error. After a rejection the
 * rest of the body is not read: the caller answers and closes the connection.
 */
export async function readMultipart<T>(
  request: IncomingMessage,
  onFile: (file: MultipartFile) => Promise<T>,
): Promise<{ fields: Record<string, string>; result: T }> {
  const { contentType, peeked } = await withBoundary(request);
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = Object.create(null);
    let fileStream: Readable | null = null;
    let handled: Promise<T> | null = null;
    let settled = false;
    let busboy: InstanceType<typeof Busboy>;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      request.unpipe(busboy);
      request.off('close', onClose);
      // onFile sees the failure too, and drops what it wrote; the answer waits until it has,
      // so a refused upload leaves no temporary object behind it.
      fileStream?.destroy(err);
      if (handled) handled.then(() => reject(err), () => reject(err));
      else reject(err);
    };
    const onClose = () => {
      if (!request.complete) fail(new BodyInterrupted());
    };
    try {
      busboy = new Busboy({ headers: { ...request.headers, 'content-type': contentType }, preservePath: true, limits: LIMITS });
    } catch {
      reject(errors.badRequest('The multipart/form-data body cannot be read (its Content-Type is malformed).'));
      return;
    }
    busboy.on('file', (field, stream, filename) => {
      fileStream = stream;
      // Its failure reaches the caller through onFile's promise (or fail): not as an unheard 'error'.
      stream.on('error', () => {});
      handled = onFile({ field, filename: filename ?? '', stream, fields: { ...fields } });
      handled.catch(fail);
    });
    busboy.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) fail(errors.field(name, `Ensure this field has no more than ${LIMITS.fieldSize} bytes.`));
      else fields[name] = value;
    });
    busboy.on('filesLimit', () => fail(errors.badRequest('Send one file per request.')));
    busboy.on('fieldsLimit', () => fail(errors.badRequest(`Send at most ${LIMITS.fields} fields besides the file.`)));
    busboy.on('partsLimit', () => fail(errors.badRequest(`Send at most ${LIMITS.parts} parts.`)));
    busboy.on('error', (err: Error) => fail(errors.badRequest(`The multipart/form-data body is malformed: ${err.message}.`)));
    busboy.on('finish', () => {
      if (settled) return;
      if (!handled) {
        fail(errors.badRequest('The multipart/form-data body holds no file: send the file as a part with a filename (field "file").'));
        return;
      }
      handled.then((result) => {
        if (settled) return;
        settled = true;
        request.off('close', onClose);
        resolve({ fields, result });
      }, fail);
    });
    request.on('close', onClose);
    if (peeked?.length) busboy.write(peeked);
    request.pipe(busboy);
    request.resume();
  });
}
