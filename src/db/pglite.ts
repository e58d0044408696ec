// The embedded database, PGlite under DATA_DIR/pgdata: imported by db/client.ts only when
// no DATABASE_URL is set, so a server on PostgreSQL never loads PGlite.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import * as schema from './schema.js';
import { traceQuery, tracingOn } from '../core/tracing.js';
import { lockDataFolder } from './folder-lock.js';
import { initFromTemplate } from './template.js';
import { queryCounter } from '../core/query-count.js';
import { MIGRATIONS_DIR, type OpenedDatabase, type Db, type OpenOptions } from './client.js';

/** Opens (or makes, from the build's template) the embedded database under `options.dataDir`. */
export async function openPglite(options: OpenOptions): Promise<OpenedDatabase> {
  const dir = path.join(options.dataDir, 'pgdata');
  fs.mkdirSync(dir, { recursive: true });
  // One process per embedded database: a second one is refused (db/folder-lock.ts).
  const release = await lockDataFolder(options.dataDir, (err) => {
    console.error(JSON.stringify({ level: 40, msg: 'the lock of the embedded data folder was lost', error: err.message }));
  });
  // The embedded engine's memory (issue 15, target 6; docs/decisions.md). Its WebAssembly
  // memory only grows, so what PostgreSQL touches once stays resident: 8 MB of shared
  // buffers (the default 128 MB, touched as it fills) is plenty for one process's working
  // set, and maintenance_work_mem is kept to 16 MB (the default 64 MB would be touched by
  // a VACUUM or an index build once and held for good).
  let client: PGlite;
  try {
    // A new folder from the build's template rather than initdb in this process (db/template.ts).
    initFromTemplate(dir);
    // PGlite's 9 MB module compiled by Liftoff only: V8's optimizing tier compiled the hot
    // PostgreSQL functions again in the background, ~80 MB more resident memory (code and
    // its compilers' zones, kept by the allocator), for a throughput gain lost in the noise
    // of our measurements (docs/decisions.md). A compile-time flag, read when a function is compiled: set before PGlite
    // compiles its module; the only other WebAssembly in the process is undici's parser.
    v8.setFlagsFromString('--liftoff-only');
    // The embedded server is one process with V8's default heap limit (HEAP_LIMIT_MB is given
    // to cluster workers when they start; V8 reads a heap's limit only when it makes the
    // heap). Left alone, a crowd of large answers, whose garbage is 1 MB strings, let the heap
    // grow to twice or more of what it kept alive (140 → 280 MB, issue 21's bench): so here
    // the heap grows by at most a fifth over what its last full collection kept, which V8
    // reads each time it sets the next limit.
    v8.setFlagsFromString('--heap-growing-percent=20');
    client = await PGlite.create(dir, {
      startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB', '-c', 'maintenance_work_mem=16MB'],
      extensions: { pg_trgm },
    });
  } catch (err) {
    await release().catch(() => {});
    throw err;
  }
  if (tracingOn) {
    // Statements of the embedded engine as spans too: those of the client, and those of a
    // transaction, which run on the handle PGlite gives its callback.
    traceStatements(client);
    const transaction = client.transaction.bind(client);
    client.transaction = (callback) => transaction((tx) => callback(traceStatements(tx)));
  }
  const db = drizzlePglite(client, { schema, logger: queryCounter }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    pool: null,
    pglite: client,
    migrate: () => migratePglite(db as never, { migrationsFolder: MIGRATIONS_DIR }),
    close: async () => {
      try {
        await client.close();
      } finally {
        await release().catch(() => {});
      }
    },
  };
}

/** Makes each `query` and `exec` of a PGlite handle (the client, or a transaction's) a span. */
function traceStatements<T extends Pick<PGlite, 'query' | 'exec'>>(handle: T): T {
  for (const method of ['query', 'exec'] as const) {
    const original = handle[method].bind(handle) as (text: string, ...rest: unknown[]) => Promise<unknown>;
    (handle as unknown as Record<string, unknown>)[method] = (text: string, ...rest: unknown[]) => traceQuery('pglite', text, () => original(text, ...rest));
  }
  return handle;
}
