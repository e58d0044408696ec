// Part of the build: makes dist/db/pgdata-template.tar.gz, a data folder freshly
// initialized by the installed PGlite (its initdb) and shut down cleanly, from which the
// embedded mode creates a new data folder without running initdb in the server's
// process (src/db/template.ts). Kept while the installed PGlite's version is the one that
// made it; SKIP_PGDATA_TEMPLATE=1 leaves it out (new folders then run initdb as before).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { TEMPLATE_FILE, TEMPLATE_INFO, packFolder, pgliteVersion, templateAvailable } = await import(path.join(root, 'dist', 'db', 'template.js'));

if (process.env.SKIP_PGDATA_TEMPLATE === '1') {
  fs.rmSync(TEMPLATE_FILE, { force: true });
  fs.rmSync(TEMPLATE_INFO, { force: true });
  process.exit(0);
}
if (templateAvailable()) process.exit(0);

const { PGlite } = await import('@electric-sql/pglite');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-pgdata-template-'));
try {
  const dir = path.join(tmp, 'pgdata');
  fs.mkdirSync(dir);
  const pg = await PGlite.create(dir);
  await pg.close();
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) throw new Error('PGlite made no data folder');
  fs.rmSync(TEMPLATE_INFO, { force: true });
  packFolder(dir, TEMPLATE_FILE);
  fs.writeFileSync(TEMPLATE_INFO, JSON.stringify({ pglite: pgliteVersion(), made: new Date().toISOString() }, null, 2) + '\n');
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
