// A row write's refusals as codes: records/ says why a write is refused, the route that
// called it says so in the spec's words (cells/messages.ts for the cell endpoints).
import { ApiError } from '../../core/errors.js';

/**
 * row_missing: the write names no row; row_elsewhere: the row is not one of the caller's
 * organization's; row_archived, row_locked: the row's state refuses it; no_credits: the
 * organization's balance does not cover the widget's price.
 */
export type RefusalCode = 'row_missing' | 'row_elsewhere' | 'row_archived' | 'row_locked' | 'no_credits';

/**
 * A refused row write. It is a 406 already (so one no route words is still an answer,
 * never a 500); routes put it in their words with the code, the row and the contact.
 */
export class RowRefusal extends ApiError {
  constructor(
    readonly code: RefusalCode,
    readonly row: string,
    /** no_credits: whom to contact; row_elsewhere: the caller's organization. */
    readonly detail = '',
  ) {
    super(406, `${code} (${row})`);
  }
}

/** Refuses a write the row's state does not allow (spec: rules about cells): archived, or locked unless `addable` at the read-only stage. */
export function checkRowState(row: { sid: string; is_locked: boolean; is_archived: boolean }, addable: boolean): void {
  if (row.is_archived) throw new RowRefusal('row_archived', row.sid);
  if (row.is_locked && !addable) throw new RowRefusal('row_locked', row.sid);
}
