// Consequence: the cell's widget price is debited (docs/credits.md). Last of a write's
// consequences: the debit locks a credit shard until commit, and the organization's writes
// on the same shard wait for it, so it is held for the fewest statements; a balance that
// does not cover it refuses the whole write (RowRefusal no_credits, naming whom to contact).
import { debitCredits, type Debit } from '../../credits/service.js';
import { currentSalesContact } from '../../admin/settings.js';
import { RowRefusal } from '../refusals.js';
import type { Consequence } from '../write.js';
import type { CellWritten } from '../cells.js';

/** The debit of a cell write: its widget's price, the ledger's reason. */
export function cellDebit(w: Pick<CellWritten, 'organizationSid' | 'column' | 'via' | 'row' | 'userSid'> & { created: boolean; cell: string }): Debit {
  return {
    organizationSid: w.organizationSid, amount: w.column.price,
    reason: `cell ${w.created ? 'created' : 'changed'} in column ${w.column.name}${w.via ? ` (${w.via})` : ''}`,
    cellSid: w.cell, rowSid: w.row.sid, userSid: w.userSid,
  };
}

/**
 * Debits the cell's widget price from the organization's credits, or refuses the write. A
 * write that made its debit in its own statement (`paid` set: cells.ts changeLocked and insertLocked, one
 * round trip fewer) is only refused here when that debit could not be paid.
 */
export const debit: Consequence<CellWritten> = async (done) => {
  const paid = done.paid ?? await debitCredits(done.tx, cellDebit(done));
  if (!paid) throw new RowRefusal('no_credits', done.row.sid, await currentSalesContact(done.tx, done.salesContact));
};
