// What each built-in step widget does to the row, inside the step's own transaction.
// They act with the authority of the workflow (an Admin defined it): no project role is
// needed, but the row rules and the credits apply as to any other write.
import type { Db } from '../../db/client.js';
import { ApiError } from '../../core/errors.js';
import { putCell, findColumnOfTable } from '../cells/write.js';
import { applyRowChanges } from '../records/row-fields.js';
import { sendNotifications } from '../notifications/send.js';
import { isStepKind, recipientSids, settingsProblems, type StepKind } from '../steps/settings.js';

/** A step that cannot be performed as set up; its message goes to the log and the execution's error. */
export class StepError extends Error {}

/** Everything a step needs to act. */
export interface StepRun {
  organizationSid: string;
  row: { sid: string; name: string; tableSid: string };
  workflowName: string;
  step: { sid: string; name: string; order: number; kind: string; widgetName: string };
  /** The step's settings, templated. */
  settings: Record<string, unknown>;
  /** The user whose request runs the step, and their personnel record in the organization. */
  userSid: string;
  personnelSid: string;
  salesContact: string;
  rowMaxBytes: number;
}

/** What a step did: a message for the log, and the event to wait for when it pauses the execution. */
export interface StepOutcome {
  message: string;
  waitFor?: string;
}

/** As the cell endpoints allow. */
const MAX_CELL_LENGTH = 100_000;

const quote = (value: string, max = 200) => `"${value.length > max ? `${value.slice(0, max)}…` : value}"`;
const via = (run: StepRun) => `workflow ${quote(run.workflowName)}, step ${run.step.order}`;

const ACTIONS: Record<StepKind, (tx: Db, run: StepRun) => Promise<StepOutcome>> = {
  async notify(tx, run) {
    const { to, name, body, should_email } = run.settings as { to: unknown; name: string; body?: string; should_email?: boolean };
    const sids = recipientSids(to);
    await sendNotifications(tx, {
      organizationSid: run.organizationSid,
      senderSid: run.personnelSid,
      recipientSids: sids,
      name,
      body: body ?? '',
      rows: [{ sid: run.row.sid, name: run.row.name }],
      shouldEmail: should_email ?? false,
    });
    const recipients = [...new Set(sids)];
    return { message: `Sent the notification ${quote(name)} to ${recipients.length} personnel: ${recipients.join(', ')}` };
  },

  async set_cell(tx, run) {
    const { column: wanted, value } = run.settings as { column: string; value: string | number | boolean };
    const column = await findColumnOfTable(tx, run.row.tableSid, wanted, { byName: true });
    if (!column) throw new StepError(`The row's table has no column ${quote(wanted)}.`);
    const data = String(value);
    if (data.length > MAX_CELL_LENGTH) throw new StepError(`The value has ${data.length} characters; a cell holds at most ${MAX_CELL_LENGTH}.`);
    const result = await putCell(tx, {
      organizationSid: run.organizationSid, rowSid: run.row.sid, column, data, userSid: run.userSid,
      salesContact: run.salesContact, rowMaxBytes: run.rowMaxBytes, onPost: false, via: via(run),
    });
    if (result.created) return { message: `Created the cell of ${column.name} with ${quote(data)}` };
    if (result.changed) return { message: `Set the cell of ${column.name} to ${quote(data)}` };
    return { message: `The cell of ${column.name} already held ${quote(data)}; nothing changed` };
  },

  async lock_row(tx, run) {
    const changed = await applyRowChanges(tx, run.userSid, run.row.sid, { is_locked: true }, via(run));
    return { message: changed.length ? 'Locked the row' : 'The row was already locked; nothing changed' };
  },

  async wait_event(_tx, run) {
    const event = run.settings.event as string;
    return { message: `Waiting for the event ${quote(event)}`, waitFor: event };
  },
};

/**
 * Performs one step in `tx` (a savepoint of the execution's transaction). Throws a
 * StepError or an ApiError (row rules, credits, recipients) when the step fails.
 */
export async function performStep(tx: Db, run: StepRun): Promise<StepOutcome> {
  const { kind } = run.step;
  if (!isStepKind(kind)) return { message: `No action: the widget ${quote(run.step.widgetName)} (${kind}) does nothing in a workflow` };
  const problems = Object.entries(settingsProblems(kind, run.settings));
  if (problems.length) {
    throw new StepError(`The step's settings do not fit a ${kind} step: ${problems.map(([k, v]) => `data.${k}: ${v}`).join('; ')}`);
  }
  return ACTIONS[kind](tx, run);
}

/** The message of a step's failure, for the log and the execution's error; undefined for an unexpected error. */
export function failureMessage(error: unknown): string | undefined {
  if (error instanceof StepError) return error.message;
  if (!(error instanceof ApiError)) return undefined;
  const { body } = error;
  if (typeof body === 'string') return body;
  if ('detail' in body && typeof body.detail === 'string') return body.detail;
  return Object.entries(body as Record<string, string[]>).map(([field, messages]) => `${field}: ${messages.join(' ')}`).join('; ');
}
