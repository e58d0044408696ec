import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { newSid } from '../../core/ids.js';

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
  // One statement: the balance taken only when it covers the amount, and its ledger entry.
  const paid = await query<{ sid: string }>(tx, sql`
    WITH paid AS (
      UPDATE organizations SET credits = credits - ${debit.amount}::numeric
       WHERE sid = ${debit.organizationSid} AND credits >= ${debit.amount}::numeric
      RETURNING credits)
    INSERT INTO credit_ledger (sid, organization_sid, amount, balance_after, reason, cell_sid, row_sid, user_sid)
    SELECT ${newSid()}, ${debit.organizationSid}, -${debit.amount}::numeric, paid.credits, ${debit.reason},
           ${debit.cellSid ?? null}, ${debit.rowSid ?? null}, ${debit.userSid ?? null}
      FROM paid
    RETURNING sid`);
  return paid.length === 1;
}

/**
 * Sets (`mode: 'set'`) or adds to (`'add'`) an organization's credits and records the
 * change in the ledger, in one transaction. Returns the new balance, or undefined when
 * there is no such organization; throws when the balance would go below zero.
 */
export async function adjustCredits(db: Db, organizationSid: string, mode: 'set' | 'add', amount: string, userSid: string | null = null) {
  return db.transaction(async (tx) => {
    const [before] = await query<{ credits: string }>(tx, sql`SELECT credits FROM organizations WHERE sid = ${organizationSid} FOR UPDATE`);
    if (!before) return undefined;
    const [after] = await query<{ credits: string; delta: string }>(tx, sql`
      UPDATE organizations SET credits = ${mode === 'set' ? sql`${amount}::numeric` : sql`credits + ${amount}::numeric`}
       WHERE sid = ${organizationSid}
      RETURNING credits, (credits - ${before.credits}::numeric)::text AS delta`);
    await tx.execute(sql`
      INSERT INTO credit_ledger (sid, organization_sid, amount, balance_after, reason, user_sid)
      VALUES (${newSid()}, ${organizationSid}, ${after.delta}::numeric, ${after.credits}, ${mode === 'set' ? 'credits set by an operator' : 'credits added by an operator'}, ${userSid})`);
    return after.credits;
  });
}
