// Live events sent after their transaction commits (issue 23; docs/decisions.md, "Live
// events are sent after commit"). A NOTIFY inside a write's transaction takes PostgreSQL's
// one lock of the notification queue at commit and holds it until the commit is on disk:
// every notifying write of the server then commits one after the other, each waiting for
// its own flush (a cell PATCH's statements ran 20% slower at 10 connections and 35% at 50
// for it, docs/performance.md). So a write's statements return its events' payloads, the
// write queues them on its transaction (notifyAfterCommit), and once the transaction has
// committed the process sends them, with those of every other write committed meanwhile,
// in one statement of their own that does not wait for the disk (an event is not data:
// a crash loses at most the events of the moment, which the streams' clients read again
// when they reconnect). A transaction (or savepoint) that rolls back sends nothing.
import { sql } from 'drizzle-orm';
import type { Db } from './client.js';

/** A NOTIFY to send: its channel and payload (under 8000 bytes). */
export type LiveNotice = readonly [channel: string, payload: string];

/** What a database handle queues its events on: its transaction's list, or none (not in a transaction: sent at once). */
interface Handle {
  publisher: Publisher;
  pending: LiveNotice[] | null;
}

const handles = new WeakMap<object, Handle>();

/** The most events one statement sends. */
const BATCH = 500;

/**
 * Sends the events of committed writes, in the order their writes queued them, one
 * statement at a time: a statement takes every event queued while the one before ran.
 */
export class Publisher {
  private queue: LiveNotice[] = [];
  private running: Promise<void> | null = null;

  /** What a failed send is told to (the app logs it); the batch is dropped. */
  onError: (error: unknown) => void = (error) => console.error('live events not sent:', error);

  constructor(private readonly send: (batch: readonly LiveNotice[]) => Promise<unknown>) {}

  publish(notices: readonly LiveNotice[]): void {
    if (!notices.length) return;
    this.queue.push(...notices);
    this.running ??= this.run();
  }

  /** Resolves once every event queued so far has been sent (or failed to be). */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    // Sent at once, with the events of the writes that commit in this turn of the event loop
    // or while the statement before runs. Not held longer to gather more (10 ms of gathering
    // measured +12% PATCHes/s): an access change committed meanwhile would be heard first, and
    // a stream would judge the older write by the viewer's newer roles (docs/decisions.md).
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const batch = this.queue.splice(0, BATCH);
      try {
        await this.send(batch);
      } catch (error) {
        this.onError(error);
      }
    }
    this.running = null;
  }
}

/** The statement that sends a batch (a JSON array of [channel, payload]): its own transaction, committed without waiting for the disk. */
export const publishSql = (batch: readonly LiveNotice[]) => sql`
  SELECT set_config('synchronous_commit', 'off', true), count(pg_notify(e->>0, e->>1))
    FROM json_array_elements(${JSON.stringify(batch)}::json) AS e`;

/**
 * Makes `db` and every transaction opened on it queue their events (notifyAfterCommit)
 * for `publisher`: a transaction's are published when it has committed, a savepoint's
 * dropped when it rolls back.
 */
export function publishAfterCommit(db: Db, publisher: Publisher): void {
  handles.set(db, { publisher, pending: null });
  const open = db.transaction.bind(db);
  db.transaction = (async (work: (tx: Db) => Promise<unknown>, config?: unknown) => {
    const pending: LiveNotice[] = [];
    const result = await open(async (tx) => {
      collect(tx as unknown as Db, publisher, pending);
      return work(tx as unknown as Db);
    }, config as never);
    publisher.publish(pending);
    return result;
  }) as Db['transaction'];
}

/** Registers transaction `tx` (events into `pending`) and makes its savepoints drop theirs when they roll back. */
function collect(tx: Db, publisher: Publisher, pending: LiveNotice[]): void {
  handles.set(tx, { publisher, pending });
  const savepoint = tx.transaction.bind(tx);
  tx.transaction = (async (work: (inner: Db) => Promise<unknown>) => {
    const mark = pending.length;
    try {
      return await savepoint(async (inner) => {
        collect(inner as unknown as Db, publisher, pending);
        return work(inner as unknown as Db);
      });
    } catch (error) {
      pending.length = mark;
      throw error;
    }
  }) as Db['transaction'];
}

/**
 * Sends `payloads` on `channel` once the transaction of `db` has committed, or at once
 * when `db` is no transaction (the statement that made them has committed already).
 */
export function notifyAfterCommit(db: Db, channel: string, payloads: readonly (string | null | undefined)[]): void {
  const handle = handles.get(db);
  if (!handle) throw new Error('notifyAfterCommit: not a handle of an opened database (db/after-commit.ts publishAfterCommit)');
  const notices = payloads.filter((p): p is string => typeof p === 'string').map((p) => [channel, p] as const);
  if (handle.pending) handle.pending.push(...notices);
  else handle.publisher.publish(notices);
}
