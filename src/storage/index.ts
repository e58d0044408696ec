// The files' storage a server uses, from its configuration (docs/files.md).
import type { FilesConfig } from '../config.js';
import { Clamd } from './clamd.js';
import { FolderStore } from './folder.js';
import { S3Store } from './s3.js';
import type { FileStore } from './store.js';

/** What the files module (and part b's records) are given: the store, the optional scanner, the limits. */
export interface FileStorage {
  store: FileStore;
  clamd: Clamd | null;
  config: FilesConfig;
}

/** The configured store (not yet opened: FileStore.open checks it at start-up) and scanner. */
export function createFileStorage(config: FilesConfig): FileStorage {
  const store = config.storage === 's3' ? new S3Store(config.s3!) : new FolderStore(config.dir);
  return { store, clamd: config.clamd ? new Clamd(config.clamd) : null, config };
}
