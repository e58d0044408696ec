// The If-Match precondition (docs/decisions.md, "If-Match"): checked inside the write's
// own transaction, after taking the record's database lock — the lock every writer of
// the record takes (a cell's and a row's writers: the row's FOR UPDATE; other records:
// their own row) — so nothing can change the record between the check and the write.
//
// The transaction is the request's ambient one: the PATCH handler runs inside it through
// AsyncLocalStorage, and `ctx.db` is that transaction while it lasts (the handler's own
// `ctx.db.transaction(…)` becomes a savepoint in it). Outside an If-Match PATCH, `ctx.db`
// is the database as before.
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client.js';

/** The transaction and whether it is still open: a timer or promise started inside it keeps the store after it ended. */
interface Ambient {
  tx: Db;
  open: boolean;
}

const ambient = new AsyncLocalStorage<Ambient>();

/** The transaction an If-Match PATCH runs in, if the caller is inside one that has not ended. */
export function ambientTransaction(): Db | undefined {
  const current = ambient.getStore();
  return current?.open ? current.tx : undefined;
}

/**
 * Runs `fn` in a transaction of `db` that `ctx.db` stands for until it ends. Work that
 * outlives it (a timer set meanwhile inherits the store) gets the database again, never a
 * connection the pool has since given to another request.
 */
export function inAmbientTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const current: Ambient = { tx: tx as unknown as Db, open: true };
    try {
      return await ambient.run(current, () => fn(current.tx));
    } finally {
      current.open = false;
    }
  });
}

/** Locks a record until the transaction ends: the same lock its writers take. */
export type RecordLock = (tx: Db, sid: string) => Promise<unknown>;

/** The lock of a record that is one row of `table` (keyed by `sid`); its writers UPDATE that row. */
export const lockOwnRow = (table: PgTable): RecordLock => (tx, sid) =>
  tx.execute(sql`SELECT 1 FROM ${table} WHERE sid = ${sid} FOR UPDATE`);

/** The lock of a record that belongs to a row of record_rows (`rowOf` selects its row's sid). */
export const lockRecordRow = (rowOf: (sid: string) => SQL): RecordLock => (tx, sid) =>
  tx.execute(sql`SELECT 1 FROM record_rows WHERE sid = (${rowOf(sid)}) FOR UPDATE`);

/**
 * One queue per key within the process: an If-Match PATCH waits here, not on a database
 * connection, while another request of this process checks the same record. Without it a
 * burst on one record holds every pooled connection waiting for that record's row lock,
 * and the requests of every other organization wait for a connection.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const run = before.catch(() => {}).then(fn);
    const tail = run.catch(() => {});
    this.tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
