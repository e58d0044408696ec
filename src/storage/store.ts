// Where files' bytes live (issue 25): one interface, content-addressed — an object's key is
// the SHA-256 of its bytes, so the same bytes stored twice are kept once. Two stores: a
// folder under DATA_DIR (the embedded default, nothing to set up: folder.ts) and
// S3-compatible object storage for several processes and machines (s3.ts). Which one is
// FILE_STORAGE's business (config.ts); docs/decisions.md, "Files: storage".
import type { Readable, Writable } from 'node:stream';

/** A byte range, both ends included (as HTTP's Range). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * An object being written before its hash is known: the bytes go to a temporary object
 * through `stream`; `commit` names it by its hash, `abort` drops it.
 */
export interface ObjectWriter {
  readonly stream: Writable;
  /**
   * After `stream` has finished: makes the temporary object the object `sha256` (`size`
   * bytes). When that object exists already, the temporary one is dropped (kept once).
   */
  commit(sha256: string, size: number): Promise<void>;
  /** Drops the temporary object (idempotent; after commit it does nothing). */
  abort(): Promise<void>;
}

export interface FileStore {
  readonly kind: 'folder' | 's3';
  /** Checks that the store can be used (the folder can be written, the bucket answers); throws a message for the operator. */
  open(): Promise<void>;
  /** Starts writing an object whose hash is not known yet. */
  begin(): Promise<ObjectWriter>;
  /** The object's bytes (or those of `range`); throws ObjectMissing when it is not stored. */
  read(sha256: string, range?: ByteRange): Promise<Readable>;
  /** Whether the object is stored. */
  exists(sha256: string): Promise<boolean>;
  /** Deletes the object (nothing when it is not stored). */
  remove(sha256: string): Promise<void>;
  /** Deletes the temporary objects of writes begun before `before` that never ended (a crash); returns how many. */
  sweepTemporary(before: Date): Promise<number>;
  close(): Promise<void>;
}

/** An object a descriptor names is not in the store (deleted behind the service, or a store swapped). */
export class ObjectMissing extends Error {
  constructor(readonly sha256: string) {
    super(`the stored object ${sha256} is missing`);
  }
}

/** A SHA-256 in hex: the only keys a store accepts (nothing from a request reaches a path or an object key). */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

export function assertHash(sha256: string): void {
  if (!SHA256_HEX.test(sha256)) throw new Error(`not a SHA-256: ${sha256.slice(0, 80)}`);
}
