// Consequence: the cell's widget price is debited (docs/credits.md). Last of a write's
// consequences: the debit locks a credit shard until commit, and the organization's writes
// on the same shard wait for it, so it is held for the fewest statements; a balance that
// does not cover it refuses the whole write (RowRefusal no_credits, naming whom to contact).
import { debitCredits } from '../../credits/service.js';
import { currentSalesContact } from '../../admin/settings.js';
import { RowRefusal } from '../refusals.js';
import type { Consequence } from '../write.js';
import type { CellWritten } from '../cells.js';

/** Debits the cell's widget price from the organization's credits, or refuses the write. */
export const debit: Consequence<CellWritten> = async (done) => {
  const paid = await debitCredits(done.tx, {
    organizationSid: done.organizationSid, amount: done.column.price,
    reason: `cell ${done.created ? 'created' : 'changed'} in column ${done.column.name}${done.via ? ` (${done.via})` : ''}`,
    cellSid: done.cell, rowSid: done.row.sid, userSid: done.userSid,
  });
  if (!paid) throw new RowRefusal('no_credits', done.row.sid, await currentSalesContact(done.tx, done.salesContact));
};
