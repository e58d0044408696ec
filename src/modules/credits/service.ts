// An organization's credits live in CREDIT_SHARDS rows of credit_shards (migration 0011,
// docs/credits.md): the balance is their sum, a debit takes its connection's shard, and
// only a shard that cannot pay makes the debit lock them all. The SQL functions
// records_debit and records_credits_adjust hold the rules; this module calls them.
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { newSid } from '../../core/ids.js';
import { errors } from '../../core/errors.js';
import { sqlErrorOf } from '../../core/sql-error.js';

/** How many rows hold each organization's credits (src/db/functions/records_debit.sql and records_credits_spread.sql say 16 too). */
export const CREDIT_SHARDS = 16;

/** The organization's balance: the sum of its shards, as last committed (an SQL expression). */
export function creditsOf(organizationSid: AnyColumn | string): SQL<string> {
  return sql<string>`(SELECT coalesce(sum(cs.credits), 0)::numeric(14, 2) FROM credit_shards cs WHERE cs.organization_sid = ${organizationSid})`;
}

export interface Debit {
  organizationSid: string;
  /** a non-negative decimal string */
  amount: string;
  reason: string;
  cellSid?: string | null;
  rowSid?: string | null;
  userSid?: string | null;
}

/**
 * Takes `amount` from the organization's credits and writes the ledger entry, in the
 * caller's transaction. False (and nothing written) when the balance does not cover it.
 * A zero amount changes nothing and is not recorded.
 */
export async function debitCredits(tx: Db, debit: Debit): Promise<boolean> {
  if (Number(debit.amount) === 0) return true;
  const [paid] = await query<{ balance: string | null }>(tx, sql`SELECT ${debitCall(debit)} AS balance`);
  return paid.balance !== null;
}

/**
 * The debit as an SQL expression, for a write that makes it in its own statement (one round
 * trip fewer): the balance after it, NULL when the credits do not cover it (nothing written).
 */
export function debitCall(debit: { [K in keyof Debit]: Debit[K] | SQL }, ledgerSid: string | SQL = newSid()): SQL {
  return sql`records_debit(${debit.organizationSid}, ${debit.amount}::numeric, ${ledgerSid}, ${debit.reason},
                         ${debit.cellSid ?? null}, ${debit.rowSid ?? null}, ${debit.userSid ?? null})`;
}

/**
 * Gives a new organization its starting balance, in the caller's transaction: its
 * CREDIT_SHARDS rows, the balance in shard 0 (the first debit on another shard spreads it).
 */
export async function createCreditShards(tx: Db, organizationSid: string, credits: string): Promise<void> {
  await tx.execute(sql`
    INSERT INTO credit_shards (organization_sid, shard, credits)
    SELECT ${organizationSid}, s, CASE WHEN s = 0 THEN ${credits}::numeric ELSE 0 END FROM generate_series(0, ${CREDIT_SHARDS - 1}) s`);
}

/**
 * Sets (`mode: 'set'`) or adds to (`'add'`) an organization's credits and records the
 * change in the ledger, in one transaction. Returns the new balance, or undefined when
 * there is no such organization; throws (SQLSTATE 23514) when the balance would go below
 * zero, 22003 when it would pass 999999999999.99.
 */
export async function adjustCredits(db: Db, organizationSid: string, mode: 'set' | 'add', amount: string, userSid: string | null = null) {
  return db.transaction(async (tx) => {
    const [after] = await query<{ balance: string }>(tx, sql`
      SELECT balance::text AS balance FROM records_credits_adjust(${organizationSid}, ${mode}, ${amount}::numeric, ${newSid()},
        ${mode === 'set' ? 'credits set by an operator' : 'credits added by an operator'}, ${userSid})`);
    return after?.balance;
  });
}

/**
 * An instance administrator grants `amount` (> 0) to an organization: added to its credits,
 * with a ledger entry naming the administrator (its user, and its reason), in one
 * transaction. Returns the entry's sid, or undefined when there is no such organization;
 * 400 on `amount` when the balance would pass 999999999999.99.
 */
export async function grantCredits(db: Db, organizationSid: string, amount: string, admin: { sid: string; name: string }, note = '') {
  try {
    return await db.transaction(async (tx) => {
      const sid = newSid();
      const reason = `credits granted by ${admin.name}${note ? `: ${note}` : ''}`;
      const [after] = await query<{ balance: string }>(tx, sql`
        SELECT balance::text AS balance FROM records_credits_adjust(${organizationSid}, 'add', ${amount}::numeric, ${sid}, ${reason}, ${admin.sid})`);
      return after ? sid : undefined;
    });
  } catch (err) {
    if (sqlErrorOf(err)?.code === '22003') throw errors.field('amount', 'The balance would pass 999999999999.99.');
    throw err;
  }
}
