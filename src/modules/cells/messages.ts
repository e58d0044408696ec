// The cell endpoints' words for a row write's refusals (spec: Errors): POST's "Error: "
// prefix and PATCH's plain form. records/ refuses with codes (records/refusals.ts); the
// routes and the callers that answer for them choose these words.
import { errors } from '../../core/errors.js';
import { RowRefusal } from '../records/refusals.js';

/** The spec's 406 texts (Errors), with POST's "Error: " prefix and PATCH's plain form. */
export const cellMessages = {
  missingRow: 'Error: Missing row__sid in the post link.',
  rowNotInOrganization: (row: string, org: string) => `Error: The row (${row}) does not belong to the organization (${org})`,
  noCredits: (contact: string, onPost: boolean) => `${onPost ? 'Error: ' : ''}Your organization does not have enough credits, contact ${contact}!`,
  archived: (row: string, onPost: boolean) => `${onPost ? 'Error: ' : ''}The row (${row}) is archived; its cells cannot be ${onPost ? 'created' : 'changed'}.`,
  locked: (row: string, onPost: boolean) => `${onPost ? 'Error: ' : ''}The row (${row}) is locked; only a widget that may be added at the read-only stage can ${onPost ? 'be added' : 'change'}.`,
};

/** A row write's refusal in the cell endpoints' words (POST's or PATCH's); any other error as it is. */
export function inCellWords(err: unknown, onPost: boolean): unknown {
  if (!(err instanceof RowRefusal)) return err;
  switch (err.code) {
    case 'row_missing': return errors.notAcceptable(cellMessages.missingRow);
    case 'row_elsewhere': return errors.notAcceptable(cellMessages.rowNotInOrganization(err.row, err.detail));
    case 'row_archived': return errors.notAcceptable(cellMessages.archived(err.row, onPost));
    case 'row_locked': return errors.notAcceptable(cellMessages.locked(err.row, onPost));
    case 'no_credits': return errors.notAcceptable(cellMessages.noCredits(err.detail, onPost));
  }
}

/** Runs `write`, its refusals worded as the cell POST (`onPost`) or PATCH says them. */
export async function cellWords<T>(onPost: boolean, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw inCellWords(err, onPost);
  }
}
