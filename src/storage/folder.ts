// The embedded default store: a folder (FILES_DIR, default DATA_DIR/files). An object is
// objects/<first two hex digits>/<sha256>; a write goes to a temporary file in objects/
// (mode 0600), is flushed to disk, and is renamed to its hash — on one filesystem, so the
// object appears whole or not at all; the folder is flushed too, so the rename survives a
// crash. Nothing from a request ever reaches a path: names are hashes and random ids.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { assertHash, ObjectMissing, type ByteRange, type FileStore, type ObjectWriter } from './store.js';

const TEMP_PREFIX = '.upload-';

async function fsyncPath(target: string): Promise<void> {
  const handle = await fsp.open(target, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class FolderStore implements FileStore {
  readonly kind = 'folder' as const;
  private readonly objects: string;

  constructor(readonly root: string) {
    this.objects = path.join(root, 'objects');
  }

  private pathOf(sha256: string): string {
    assertHash(sha256);
    return path.join(this.objects, sha256.slice(0, 2), sha256);
  }

  async open(): Promise<void> {
    await fsp.mkdir(this.objects, { recursive: true, mode: 0o700 });
    await fsp.access(this.objects, fs.constants.W_OK);
  }

  async begin(): Promise<ObjectWriter> {
    const temp = path.join(this.objects, `${TEMP_PREFIX}${randomBytes(12).toString('hex')}`);
    // flush: the file's data reach the disk before the stream reports it closed.
    const stream = fs.createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true });
    let done = false;
    const store = this;
    const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    return {
      stream,
      async commit(sha256: string) {
        const target = store.pathOf(sha256);
        await closed;
        if (await exists(target)) {
          await fsp.rm(temp, { force: true });
        } else {
          await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
          await fsp.rename(temp, target);
          await fsyncPath(path.dirname(target));
        }
        done = true;
      },
      async abort() {
        if (done) return;
        done = true;
        stream.destroy();
        await closed;
        await fsp.rm(temp, { force: true });
      },
    };
  }

  async read(sha256: string, range?: ByteRange): Promise<fs.ReadStream> {
    const target = this.pathOf(sha256);
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(target, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectMissing(sha256);
      throw err;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {}) as unknown as fs.ReadStream;
  }

  exists(sha256: string): Promise<boolean> {
    return exists(this.pathOf(sha256));
  }

  async remove(sha256: string): Promise<void> {
    await fsp.rm(this.pathOf(sha256), { force: true });
  }

  async sweepTemporary(before: Date): Promise<number> {
    let removed = 0;
    for (const name of await fsp.readdir(this.objects).catch(() => [] as string[])) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const file = path.join(this.objects, name);
      const stat = await fsp.stat(file).catch(() => null);
      if (stat && stat.mtime < before) {
        await fsp.rm(file, { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  async close(): Promise<void> {}
}

async function exists(file: string): Promise<boolean> {
  try {
    await fsp.access(file);
    return true;
  } catch {
    return false;
  }
}
