// The one door for a row's writes: the refusals checked cheapest first, the change applied
// to the row its caller has locked (lock.ts lockRow), then the change's consequences in
// their order, each a file of consequences/ — all in the caller's transaction.
import type { Db } from '../../db/client.js';
import type { RowRef } from './lock.js';

/** What a write did, for its consequences: the version it appended and what it says. */
export interface Written {
  tx: Db;
  row: RowRef;
  userSid: string;
  /** The row's version the change appended. */
  version: number;
  /** The version's activity message. */
  activity: string;
}

/** One consequence of a change, run after it in the order of the write's list. */
export type Consequence<W extends Written> = (done: W) => Promise<void>;

export interface RowWriteSteps<W extends Written> {
  /** Refusals, the cheapest first: each throws (a RowRefusal or a field error) or returns. */
  checks?: readonly (() => void | Promise<void>)[];
  /** Applies the change; null when it changed nothing (no version, no consequence). */
  apply: () => Promise<W | null>;
  /** Run in order after the change (a debit that may refuse comes last: it holds a credit shard's lock until commit). */
  consequences: readonly Consequence<W>[];
}

/**
 * Writes a locked row: the checks, the change, then its consequences. Returns what the
 * change did, or null when it changed nothing.
 */
export async function writeRow<W extends Written>(steps: RowWriteSteps<W>): Promise<W | null> {
  for (const check of steps.checks ?? []) await check();
  const done = await steps.apply();
  if (!done) return null;
  for (const consequence of steps.consequences) await consequence(done);
  return done;
}
