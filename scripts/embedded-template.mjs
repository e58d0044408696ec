// Part of the build: makes dist/db/pgdata-template.tar.gz, a data folder freshly
// initialized by the installed PGlite's initdb, from which the embedded mode creates a new
// data folder without running initdb in the server's process (src/db/template.ts). Kept
// while the installed PGlite's version is the one that made it; SKIP_PGDATA_TEMPLATE=1
// leaves it out (new folders then run initdb as before).
//
// Its memory (issue 22, point 7: the first `npm start` under 600 MB for all its processes).
// `PGlite.create(folder)` peaked at ~850 MB here: it runs initdb in a second PGlite
// instance beside the first, and that initdb copies the instance's whole 128 MB heap to
// reset it between the postgres runs it makes; then the first instance starts PostgreSQL
// on the new folder while the second's memory waits for the garbage collector. This script
// makes the folder with PGlite's initdb alone: one instance without a database
// (`noInitDb`), PGlite's own initdb runner on it (an internal function, found by what it
// is, see initdbRunner), the folder packed straight from that instance's in-memory files,
// one file at a time; initdb's PostgreSQL runs with the server's own small shared buffers
// and maintenance memory (db/client.ts); PGlite's code compiled by Liftoff only, as in the
// server. ~430 MB. Should a PGlite version hide the runner, the public
// `PGlite.create(folder)` path runs instead (with the same settings: ~600 MB).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { TEMPLATE_FILE, TEMPLATE_INFO, folderSource, packFolder, pgliteVersion, templateAvailable } = await import(pathToFileURL(path.join(root, 'dist', 'db', 'template.js')).href);

if (process.env.SKIP_PGDATA_TEMPLATE === '1') {
  fs.rmSync(TEMPLATE_FILE, { force: true });
  fs.rmSync(TEMPLATE_INFO, { force: true });
  process.exit(0);
}
if (templateAvailable()) process.exit(0);

/** initdb's settings: those the server starts PostgreSQL with (db/client.ts); also written to the folder's postgresql.conf. */
const SETTINGS = ['-c', 'shared_buffers=8MB', '-c', 'maintenance_work_mem=16MB'];
/** Where PGlite's instance keeps its data folder in its own file system. */
const PGLITE_DATA = '/pglite/data';

/**
 * PGlite's initdb runner, `({pg, args}) => {exitCode, stderr}`: not exported, so looked
 * for in the package's chunks as the function that passes initdb its fixed arguments.
 */
async function initdbRunner() {
  const dist = path.dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  for (const name of fs.readdirSync(dist).filter((f) => f.endsWith('.js')).sort()) {
    const file = path.join(dist, name);
    if (!fs.readFileSync(file, 'utf8').includes('--allow-group-access')) continue;
    const chunk = await import(pathToFileURL(file).href);
    const runner = Object.values(chunk).find((f) => typeof f === 'function' && String(f).includes('--allow-group-access'));
    if (runner) return runner;
  }
  return null;
}

/** An instance's in-memory folder as a source to pack (emscripten's FS API). */
function instanceSource(FS, base) {
  return {
    list: (relative) => FS.readdir(path.posix.join(base, relative)).filter((n) => n !== '.' && n !== '..')
      .map((name) => ({ name, folder: FS.isDir(FS.stat(path.posix.join(base, relative, name)).mode) })),
    read: (relative) => FS.readFile(path.posix.join(base, relative)),
  };
}

v8.setFlagsFromString('--liftoff-only');
const { PGlite } = await import('@electric-sql/pglite');
fs.rmSync(TEMPLATE_INFO, { force: true });
const partial = `${TEMPLATE_FILE}.tmp-${process.pid}`;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-pgdata-template-'));
try {
  const initdb = await initdbRunner();
  if (initdb) {
    const pg = await PGlite.create({ noInitDb: true });
    try {
      const result = await initdb({ pg, args: SETTINGS });
      if (result.exitCode !== 0) throw new Error(`PGlite's initdb failed (${result.exitCode}): ${result.stderr}`);
      if (!pg.Module.FS.analyzePath(`${PGLITE_DATA}/PG_VERSION`).exists) throw new Error('PGlite\'s initdb made no data folder');
      await packFolder(instanceSource(pg.Module.FS, PGLITE_DATA), partial);
    } finally {
      await pg.close();
    }
  } else {
    const dir = path.join(tmp, 'pgdata');
    fs.mkdirSync(dir);
    const pg = await PGlite.create(dir, { initDbStartParams: SETTINGS });
    await pg.close();
    if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) throw new Error('PGlite made no data folder');
    await packFolder(folderSource(dir), partial);
  }
  fs.renameSync(partial, TEMPLATE_FILE);
  fs.writeFileSync(TEMPLATE_INFO, JSON.stringify({ pglite: pgliteVersion(), made: new Date().toISOString() }, null, 2) + '\n');
} finally {
  fs.rmSync(partial, { force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
}
