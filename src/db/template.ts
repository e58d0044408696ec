// A new embedded data folder from a template made at build time (issue 15, target 6).
//
// PGlite initializes a new data folder by running initdb inside the process: a second
// PostgreSQL instance and initdb's own WebAssembly module beside the first, whose memory
// only grows. That first start peaked at about 800 MB RSS, against about 250 MB for a
// start on an existing folder. The build (scripts/embedded-template.mjs) runs that initdb
// once and packs the folder, shut down cleanly, into dist/db/pgdata-template.tar.gz with
// the PGlite version that made it; a new folder is unpacked from it (files only, no
// WebAssembly) and PGlite finds an existing database. Migrations run on it as on any
// folder. Without a template, or with one made by another PGlite version, PGlite's own
// initdb runs as before.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const TEMPLATE_FILE = path.join(HERE, 'pgdata-template.tar.gz');
export const TEMPLATE_INFO = path.join(HERE, 'pgdata-template.json');

/** The installed PGlite's version: a template is used only with the version that made it. */
export function pgliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  let dir = path.dirname(entry);
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
  return (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Whether a usable template exists: made by the installed PGlite. */
export function templateAvailable(): boolean {
  try {
    const info = JSON.parse(fs.readFileSync(TEMPLATE_INFO, 'utf8')) as { pglite?: string };
    return info.pglite === pgliteVersion() && fs.existsSync(TEMPLATE_FILE);
  } catch {
    return false;
  }
}

// A minimal ustar archive: directories and regular files, names under 100 bytes.
const BLOCK = 512;

function header(name: string, type: '0' | '5', size: number, mode: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  if (Buffer.byteLength(name) > 99) throw new Error(`template: the name ${name} is too long for the archive`);
  h.write(name, 0, 100, 'utf8');
  h.write(`${mode.toString(8).padStart(7, '0')}\0`, 100, 8, 'ascii');
  h.write('0000000\0', 108, 8, 'ascii'); // uid
  h.write('0000000\0', 116, 8, 'ascii'); // gid
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 12, 'ascii');
  h.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136, 12, 'ascii');
  h.write('        ', 148, 8, 'ascii'); // the checksum counts itself as spaces
  h.write(type, 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

/** A folder to pack: its entries (name, whether a folder) and a file's bytes, by relative name. */
export interface PackSource {
  list(relative: string): Array<{ name: string; folder: boolean }>;
  read(relative: string): Uint8Array;
}

/** The folder `dir` on disk as a PackSource. */
export function folderSource(dir: string): PackSource {
  return {
    list: (relative) => fs.readdirSync(path.join(dir, relative), { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.isFile()).map((e) => ({ name: e.name, folder: e.isDirectory() })),
    read: (relative) => fs.readFileSync(path.join(dir, relative)),
  };
}

/**
 * Packs a folder (its contents, relative names, sorted) into a gzipped tar at `file`,
 * one entry at a time into the compressor: the folder's bytes are never all held at once.
 */
export async function packFolder(source: PackSource, file: string): Promise<void> {
  const gzip = zlib.createGzip({ level: 9 });
  const done = new Promise<void>((resolve, reject) => {
    const out = fs.createWriteStream(file);
    out.on('finish', resolve).on('error', reject);
    gzip.on('error', reject).pipe(out);
  });
  const write = async (chunk: Uint8Array) => {
    if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once('drain', resolve));
  };
  const walk = async (relative: string) => {
    for (const entry of source.list(relative).sort((a, b) => a.name.localeCompare(b.name))) {
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.folder) {
        await write(header(`${name}/`, '5', 0, 0o700));
        await walk(name);
      } else {
        const data = source.read(name);
        await write(header(name, '0', data.length, 0o600));
        await write(data);
        if (data.length % BLOCK) await write(Buffer.alloc(BLOCK - (data.length % BLOCK)));
      }
    }
  };
  await walk('');
  await write(Buffer.alloc(2 * BLOCK));
  gzip.end();
  await done;
}

/** Unpacks a gzipped tar made by packFolder into `dir` (which must exist). */
export function unpackInto(file: string, dir: string): void {
  const tar = zlib.gunzipSync(fs.readFileSync(file));
  const root = path.resolve(dir);
  for (let offset = 0; offset + BLOCK <= tar.length;) {
    const h = tar.subarray(offset, offset + BLOCK);
    offset += BLOCK;
    if (h.every((byte) => byte === 0)) break;
    const name = h.toString('utf8', 0, 100).replace(/\0.*$/s, '');
    const size = parseInt(h.toString('ascii', 124, 136).replace(/\0.*$/s, '').trim() || '0', 8);
    const type = h.toString('ascii', 156, 157);
    const target = path.resolve(root, name);
    if (target !== root && !target.startsWith(root + path.sep)) throw new Error(`template: ${name} lies outside the folder`);
    if (type === '5') fs.mkdirSync(target, { recursive: true, mode: 0o700 });
    else if (type === '0' || type === '\0') {
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fs.writeFileSync(target, tar.subarray(offset, offset + size), { mode: 0o600 });
    } else throw new Error(`template: unexpected entry type ${JSON.stringify(type)} for ${name}`);
    offset += Math.ceil(size / BLOCK) * BLOCK;
  }
}

/**
 * Fills the new data folder `pgdata` (missing or empty) from the template; true when it
 * did. It unpacks beside it and renames, so a start stopped half-way leaves no folder
 * that looks initialized. A folder with anything in it is left to PGlite.
 */
export function initFromTemplate(pgdata: string): boolean {
  if (!templateAvailable()) return false;
  if (fs.existsSync(pgdata) && fs.readdirSync(pgdata).length > 0) return false;
  const staging = `${pgdata}.new-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true, mode: 0o700 });
  try {
    unpackInto(TEMPLATE_FILE, staging);
    if (fs.existsSync(pgdata)) fs.rmdirSync(pgdata);
    fs.renameSync(staging, pgdata);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  return true;
}
