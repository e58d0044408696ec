// The files' storage a server uses, from its configuration (docs/files.md).
import type { FilesConfig } from '../config.js';
import { Clamd } from './clamd.js';
import { FolderStore } from './folder.js';
import type { S3Settings } from './s3.js';
import type { ByteRange, FileStore, ObjectWriter } from './store.js';

/** What the files module (and part b's records) are given: the store, the optional scanner, the limits. */
export interface FileStorage {
  store: FileStore;
  clamd: Clamd | null;
  config: FilesConfig;
}

/**
 * The S3 store, its module (and the AWS SDK's, ~0.2 s of CPU to load) imported when the
 * store is first used: at start-up by open(), and never by a server on the folder store.
 */
class DeferredS3Store implements FileStore {
  readonly kind = 's3' as const;
  private loaded: Promise<FileStore> | null = null;

  constructor(private readonly settings: S3Settings) {}

  private store(): Promise<FileStore> {
    return (this.loaded ??= import('./s3.js').then(({ S3Store }) => new S3Store(this.settings)));
  }

  async open(): Promise<void> {
    return (await this.store()).open();
  }
  async begin(): Promise<ObjectWriter> {
    return (await this.store()).begin();
  }
  async read(sha256: string, range?: ByteRange) {
    return (await this.store()).read(sha256, range);
  }
  async exists(sha256: string): Promise<boolean> {
    return (await this.store()).exists(sha256);
  }
  async remove(sha256: string): Promise<void> {
    return (await this.store()).remove(sha256);
  }
  async sweepTemporary(before: Date): Promise<number> {
    return (await this.store()).sweepTemporary(before);
  }
  async close(): Promise<void> {
    const store = await this.loaded?.catch(() => null);
    await store?.close();
  }
}

/** The configured store (not yet opened: FileStore.open checks it at start-up) and scanner. */
export function createFileStorage(config: FilesConfig): FileStorage {
  const store = config.storage === 's3' ? new DeferredS3Store(config.s3!) : new FolderStore(config.dir);
  return { store, clamd: config.clamd ? new Clamd(config.clamd) : null, config };
}
