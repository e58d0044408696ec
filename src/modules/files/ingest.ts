// An upload's bytes, from the request to storage (issue 25): one pass that counts them
// against the size limit and the organization's room, computes their SHA-256, keeps the
// first bytes for the sniff, and hands each chunk to the scanner (when one is configured)
// and then to the store's writer — with back-pressure all the way, so the process holds a
// few chunks of a file, never the whole. Nothing becomes a file until `commitFile`
// (service.ts): a refused or broken upload leaves no object and no descriptor.
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStore, ObjectWriter } from '../../storage/store.js';
import type { Clamd, Scan } from '../../storage/clamd.js';
import { SNIFF_BYTES } from './sniff.js';

/** The bytes went past a limit: which, and the limit in bytes. */
export class OverLimit extends Error {
  constructor(readonly which: 'file' | 'quota', readonly limit: number) {
    super(`over the ${which} limit`);
  }
}

/** Bytes received and written to a temporary object, not yet a file. */
export interface Received {
  sha256: string;
  size: number;
  head: Buffer;
  writer: ObjectWriter;
}

export interface Limits {
  /** FILE_MAX_BYTES. */
  maxBytes: number;
  /** What the organization's quota still allows (the transaction checks again). */
  roomBytes: number;
}

/**
 * Streams `source` into a temporary object of `store`, scanned by `clamd` when given.
 * Throws OverLimit, the scanner's Infected or ScannerUnavailable, or the stream's error;
 * the temporary object is then gone.
 */
export async function receive(source: Readable, store: FileStore, clamd: Clamd | null, limits: Limits): Promise<Received> {
  const writer = await store.begin();
  let scan: Scan | null = null;
  try {
    scan = clamd ? await clamd.begin() : null;
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let headBytes = 0;
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > limits.maxBytes) return done(new OverLimit('file', limits.maxBytes));
        if (size > limits.roomBytes) return done(new OverLimit('quota', limits.roomBytes));
        hash.update(chunk);
        if (headBytes < SNIFF_BYTES) {
          head.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
          headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
        }
        if (!scan) return done(null, chunk);
        scan.write(chunk).then(() => done(null, chunk), done);
      },
    });
    await pipeline(source, meter, writer.stream);
    if (scan) await scan.finish();
    return { sha256: hash.digest('hex'), size, head: Buffer.concat(head), writer };
  } catch (err) {
    scan?.abort();
    await writer.abort().catch(() => {});
    throw err;
  }
}
