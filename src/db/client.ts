import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { sql, type SQL } from 'drizzle-orm';
import * as schema from './schema.js';
import { tracePgQuery, traceQuery, tracingOn } from '../core/tracing.js';
import { lockDataFolder } from './folder-lock.js';
import { initFromTemplate } from './template.js';
import { queryCounter } from '../core/query-count.js';

/** A Drizzle handle on either engine, or a transaction of one: the same API for both. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Applies pending migrations; safe when several processes start at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** The pg pool (PostgreSQL only), for LISTEN/NOTIFY and health checks. */
  pool: pg.Pool | null;
  /** The embedded engine (PGlite only), for LISTEN/NOTIFY within the process. */
  pglite?: PGlite | null;
}

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any constant shared by every process of the service: serializes concurrent migrations.
const MIGRATION_LOCK = 72_410_001;

// Timestamps and dates are formatted by SQL (see core/sql.ts); keep numeric and int8
// as strings so money never passes through a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * A pg client that prepares each parameterized statement once per connection: the
 * server parses and plans a statement the first time and binds it after that, and the
 * client sends only its name. Statement texts get names from one process-wide table;
 * past MAX_PREPARED texts (or over MAX_PREPARED_TEXT characters, e.g. long IN lists) a
 * statement is sent unnamed as before, so a connection never holds more than that many.
 * Statements without parameters (BEGIN, COMMIT, migrations, which may hold several
 * commands) stay on the simple protocol.
 */
const MAX_PREPARED = 2_000;
const MAX_PREPARED_TEXT = 8_000;
const statementNames = new Map<string, string>();

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_PREPARED && text.length <= MAX_PREPARED_TEXT) {
    name = `rs${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

class PreparingClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (config && typeof config === 'object' && typeof config.text === 'string' && !config.name
      && ((Array.isArray(values) && values.length) || (Array.isArray(config.values) && config.values.length))) {
      const name = statementName(config.text);
      if (name) config = { ...config, name };
    }
    if (!tracingOn) return super.query(config, values, callback);
    const args = [config, values, callback];
    while (args.length && args[args.length - 1] === undefined) args.pop();
    return tracePgQuery(args, (a) => (super.query as (...x: unknown[]) => unknown)(...a));
  }
}

/** Opens the database named by DATABASE_URL, or the embedded PGlite under dataDir. */
export async function openDatabase(options: {
  databaseUrl: string | null;
  dataDir: string;
  poolSize?: number;
  /** PostgreSQL: the longest a statement may run before it is cancelled (the request answers 503). Default 30 s. */
  statementTimeoutSeconds?: number;
}): Promise<Database> {
  if (options.databaseUrl) {
    const timeoutMs = (options.statementTimeoutSeconds ?? 30) * 1000;
    const pool = new pg.Pool({
      Client: PreparingClient,
      connectionString: options.databaseUrl,
      // Plan each execution for its parameters: a generic plan of a prepared statement
      // cannot see that a row's sid picks a few versions out of millions.
      // No statement runs longer than the timeout (an overloaded or stuck database answers
      // 503, never holds a request forever), and a server that stops answering altogether
      // is given up on 5 s later (migrations lift the limit for their own session).
      options: `-c plan_cache_mode=force_custom_plan -c statement_timeout=${timeoutMs}`,
      query_timeout: timeoutMs + 5_000,
      max: options.poolSize ?? 10,
      // Fail fast (503) when the server does not accept connections, rather than hang.
      connectionTimeoutMillis: 3_000,
      idleTimeoutMillis: 30_000,
    });
    // A client losing its connection (a database restart) must not crash the process: the
    // pool handles an idle client's error, but a checked-out client (a transaction between
    // two statements) emits it with nobody listening. Its queries fail (503) and the pool
    // drops it when it is released.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = drizzlePg(pool, { schema, logger: queryCounter }) as unknown as Db;
    return {
      kind: 'postgres',
      db,
      pool,
      pglite: null,
      async migrate() {
        const client = await pool.connect();
        try {
          await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
          // On the locking session itself, without the statement timeout: an index on a
          // large table may take longer than a request may.
          await client.query('SET statement_timeout = 0');
          await migratePg(drizzlePg(client, { schema }) as never, { migrationsFolder: MIGRATIONS_DIR });
          await client.query('RESET statement_timeout');
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
          client.release();
        }
      },
      close: () => pool.end(),
    };
  }
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

/** Runs a raw query and returns its rows, on either engine. */
export async function query<T>(db: Db, statement: SQL): Promise<T[]> {
  const result = (await db.execute(statement)) as unknown as { rows: T[] };
  return result.rows;
}

export { sql };
