// Every unique rule of the schema (src/db/schema.ts) and the 4xx it answers, in one place.
// A write checks a rule first to answer it well (a service's own, more specific message);
// when two requests race past that check, the database's unique index refuses the second
// (SQLSTATE 23505) and the error handler answers this catalog's error for the index's
// constraint name: the same status and field, never a 500. Matched by code and constraint
// name, never by message text. A unique index without an entry here answers 500 (and a
// test in test/modules/unique-races.test.ts fails), so a new one must be added.
import { ApiError, errors } from './errors.js';
import { sqlErrorOf } from './sql-error.js';

export const UNIQUE_RULES: Record<string, () => ApiError> = {
  users_email_key_key: () => errors.field('email', 'A user with this email already exists.'),
  personnel_org_user_key: () => errors.field('email', 'This user is already a member of this organization.'),
  organizations_username_key: () => errors.field('username', 'Another organization has this username.'),
  record_tables_org_code_key: () => errors.field('unique_code', 'Another table of this organization has this code.'),
  project_members_project_personnel_key: () => errors.field('personnel', 'This personnel record is already a member of this project.'),
  cells_row_column_key: () => errors.field('column', 'The row already has a cell in this column; PATCH that cell instead.'),
  steps_workflow_order_key: () => errors.field('order', 'Another step of this workflow took this order meanwhile; retry.'),
  // Written under the row's lock: a race here means a concurrent write of the row; retrying is safe.
  versions_row_version_key: () => errors.conflict('The row changed meanwhile; retry.'),
  // Written with ON CONFLICT: a retry of the same key while the first runs.
  idempotency_keys_user_key: () => new ApiError(409, { detail: 'A request with this Idempotency-Key is still in progress; retry shortly.' }, { 'retry-after': '1' }),
  // Written with ON CONFLICT DO NOTHING by the digest job, never in a request.
  job_runs_name_period_key: () => errors.conflict('This job already ran for this period.'),
  // Random 16-character sids (and the sid unique constraints): a collision is a retryable conflict.
  credentials_sid_unique: () => errors.conflict('A generated id collided; retry.'),
  credit_ledger_sid_unique: () => errors.conflict('A generated id collided; retry.'),
};

/** The constraint a unique violation (23505) names, looking through wrapped causes (Drizzle wraps the driver's error). */
export function violatedUnique(error: unknown): string | undefined {
  const e = sqlErrorOf(error);
  return e?.code === '23505' ? e.constraint ?? '' : undefined;
}

/** The API error for a unique violation, when `error` is one of a known rule. */
export function uniqueRuleError(error: unknown): ApiError | undefined {
  const constraint = violatedUnique(error);
  if (constraint === undefined) return undefined;
  if (Object.hasOwn(UNIQUE_RULES, constraint)) return UNIQUE_RULES[constraint]();
  // A primary key (a random sid) or an index not in the catalog: a conflict the client may retry.
  if (constraint.endsWith('_pkey')) return errors.conflict('A generated id collided; retry.');
  return undefined;
}
