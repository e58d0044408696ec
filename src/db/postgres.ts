// PostgreSQL (DATABASE_URL) through node-postgres: imported by db/client.ts only when a
// server or the CLI opens PostgreSQL, so the embedded default never loads pg.
import pg from 'pg';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import * as schema from './schema.js';
import { tracePgQuery, tracingOn } from '../core/tracing.js';
import { queryCounter } from '../core/query-count.js';
import { planGenerically } from '../core/prepared.js';
import { MIGRATIONS_DIR, type OpenedDatabase, type Db, type OpenOptions } from './client.js';
import { COMMIT_WITH, OPENING, PipelinedQuery, noAnswer } from './pipelined.js';

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

/**
 * Drizzle opens every transaction with `begin`; ours also put the transaction's statements
 * on PostgreSQL's own plan choice (`auto`: a prepared statement's generic plan, kept by the
 * connection, once it costs no more than planning each time), in the same round trip. A
 * transaction is a write: its statements find rows by their keys (the row and its cells,
 * the caller's standing, the version head, a credit shard, and every statement inside the
 * write functions), planned the same whatever the values, where planning each execution
 * cost more than running it. Reads outside transactions keep the session's
 * force_custom_plan (docs/decisions.md, "Prepared statements, custom plans").
 */
const TX_BEGIN = OPENING.join('; ');

/** The text of a statement sent as a config object, lower-cased, when it is one of `words` without values. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function bare(config: any, values: any, ...words: string[]): string | undefined {
  if (!config || typeof config !== 'object' || typeof config.text !== 'string') return undefined;
  if ((Array.isArray(values) && values.length) || (Array.isArray(config.values) && config.values.length)) return undefined;
  const text = config.text.trim().toLowerCase();
  return words.includes(text) ? text : undefined;
}

/**
 * The pg client of the service's pools. Besides naming statements (above), it saves a
 * transaction two round trips (db/pipelined.ts): its BEGIN waits for the first statement
 * and goes out with it when that one has parameters (alone before it otherwise), and a
 * statement marked COMMIT_WITH takes the COMMIT with it; the COMMIT the transaction then
 * sends is answered here when that statement succeeded. (Not from the session's status: a
 * failed statement's error is heard before its ReadyForQuery, and its ROLLBACK must go out.)
 */
class PreparingClient extends pg.Client {
  /** A BEGIN held back until the transaction's first statement. */
  private opening = false;
  /** The last statement sent was a COMMIT_WITH one and it succeeded: its transaction is committed. */
  private committed = false;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (bare(config, values, 'begin')) {
      this.opening = true;
      return this.answer(noAnswer('BEGIN'), values, callback);
    }
    const end = bare(config, values, 'commit', 'rollback');
    if (end && (this.opening || this.committed)) {
      // Nothing was sent since BEGIN, or the last statement committed: nothing to end.
      this.opening = false;
      this.committed = false;
      return this.answer(noAnswer(end.toUpperCase()), values, callback);
    }
    this.committed = false;
    const parameterized = config && typeof config === 'object' && typeof config.text === 'string'
      && ((Array.isArray(values) && values.length) || (Array.isArray(config.values) && config.values.length));
    if (parameterized && !config.name) {
      const name = statementName(config.text);
      if (name) config = { ...config, name };
    }
    const before = this.opening ? OPENING : [];
    if (this.opening && !parameterized) {
      // A statement on the simple protocol (it may hold several commands): BEGIN goes just before it.
      void (this.send([{ text: TX_BEGIN }]) as Promise<unknown>).catch(() => {});
    }
    this.opening = false;
    const after = parameterized && config.text.endsWith(COMMIT_WITH) ? ['commit'] : [];
    if (parameterized && (before.length || after.length)) {
      const pipelined = new PipelinedQuery(config, values, before, after);
      const done = typeof values === 'function' ? values : callback;
      return this.send([pipelined], (error, result) => {
        if (!error && after.length) this.committed = true;
        done?.(error, result);
      }, Boolean(done));
    }
    return this.send([config, values, callback]);
  }

  /** super.query, traced when tracing is on; a submittable (PipelinedQuery) is given a promise of its answer. */
  private send(args: unknown[], callback?: (error: Error | null, result?: unknown) => void, byCallback = false): unknown {
    while (args.length && args[args.length - 1] === undefined) args.pop();
    const submit = (a: unknown[]) => {
      if (!(a[0] instanceof PipelinedQuery)) return (super.query as (...x: unknown[]) => unknown)(...a);
      const query = a[0] as PipelinedQuery & { callback?: (error: Error | null, result?: unknown) => void };
      const answer = new Promise((resolve, reject) => {
        query.callback = (error, result) => {
          callback?.(error, result);
          if (error) reject(error);
          else resolve(result);
        };
      });
      (super.query as (...x: unknown[]) => unknown)(query);
      // With a callback, the caller reads the answer there (as pg does); the promise must not go unhandled.
      if (byCallback) answer.catch(() => {});
      return byCallback ? undefined : answer;
    };
    return tracingOn ? tracePgQuery(args, submit) : submit(args);
  }

  /** Answers a statement that was not sent, as pg would: by the callback, or a promise. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private answer(result: pg.QueryResult, values?: any, callback?: any): any {
    const done = typeof values === 'function' ? values : callback;
    if (typeof done === 'function') {
      process.nextTick(() => done(null, result));
      return undefined;
    }
    return Promise.resolve(result);
  }
}

/** A pool of PreparingClients on `options.databaseUrl` whose sessions plan statements by `planCacheMode`. */
function newPool(options: OpenOptions & { databaseUrl: string }, planCacheMode: string, timeoutMs: number): pg.Pool {
  const pool = new pg.Pool({
    Client: PreparingClient,
    connectionString: options.databaseUrl,
    // No statement runs longer than the timeout (an overloaded or stuck database answers
    // 503, never holds a request forever), and a server that stops answering altogether
    // is given up on 5 s later (migrations lift the limit for their own session).
    options: `-c plan_cache_mode=${planCacheMode} -c statement_timeout=${timeoutMs}`,
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
  return pool;
}

/** Opens the PostgreSQL database of `options.databaseUrl`. */
export function openPostgres(options: OpenOptions & { databaseUrl: string }): OpenedDatabase {
  const timeoutMs = (options.statementTimeoutSeconds ?? 30) * 1000;
  // Plan each execution for its parameters: a generic plan of a prepared statement
  // cannot see that a row's sid picks a few versions out of millions.
  const pool = newPool(options, 'force_custom_plan', timeoutMs);
  // The statements whose best plan does not depend on their values (a page of an
  // organization's personnel, a recipient's inbox, a table's rows in one of its orders:
  // keys and the index that gives the order) run on a second pool whose sessions plan a
  // prepared statement once and keep that plan (`force_generic_plan`), saving the planning
  // of every execution (core/prepared.ts, docs/performance.md). Not `auto`: it compares
  // the generic plan's estimate with the custom plans' and, for the row page, kept
  // planning it every time although the plan was the same. Its connections open only
  // when such a statement runs.
  const genericPool = newPool(options, 'force_generic_plan', timeoutMs);
  const db = drizzlePg(pool, { schema, logger: queryCounter }) as unknown as Db;
  const genericDb = drizzlePg(genericPool, { schema, logger: queryCounter }) as unknown as Db;
  planGenerically(db, genericDb);
  return {
    kind: 'postgres',
    db,
    pool,
    genericPool,
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
    close: async () => {
      await Promise.all([pool.end(), genericPool.end()]);
    },
  };
}
