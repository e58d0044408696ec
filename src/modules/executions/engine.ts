// The workflow engine: starts or continues the execution of a workflow for a row, then
// runs its steps in order, inline, each in its own transaction (docs/workflows.md).
//
// Every transaction that changes an execution first locks it (SELECT … FOR UPDATE) and
// re-reads where it is, so two requests that advance the same execution at once never
// run a step twice: the second sees the first one's progress and goes on from there.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { newSid } from '../../core/ids.js';
import { cellsOfRows } from '../rows/repository.js';
import { failureMessage, performStep, type StepOutcome } from './actions.js';
import { render, type TemplateContext } from './template.js';
import type { ExecutionStatus } from './schemas.js';
import { MAX_STEPS } from '../steps/settings.js';

/** Who drives the execution in this request: versions, cells and log entries are recorded for them. */
export interface Driver {
  userSid: string;
  personnelSid: string;
}

export interface TriggerInput {
  workflowSid: string;
  rowSid: string;
  driver: Driver;
  /** Merged into the execution's variables (top-level keys replace). */
  variables?: Record<string, unknown>;
  /** Merged into the execution's data (top-level keys replace). */
  data?: Record<string, unknown>;
  /** An event for the log; resumes the execution when it waits for it. */
  event?: string;
  /** Runs first in the transaction that starts or continues the execution (the workflow's own changes). */
  before?: (tx: Db) => Promise<void>;
}

interface LogInput {
  event: string;
  status: 'info' | 'ok' | 'warning' | 'error' | 'received';
  message: string;
  stepSid?: string | null;
}

async function log(tx: Db, executionSid: string, userSid: string | null, entry: LogInput): Promise<void> {
  await tx.execute(sql`
    INSERT INTO workflow_execution_log (execution_sid, step_sid, user_sid, event, status, message)
    VALUES (${executionSid}, ${entry.stepSid ?? null}, ${userSid}, ${entry.event}, ${entry.status}, ${entry.message})`);
}

const quote = (value: string) => `"${value}"`;

/**
 * Starts an execution of the workflow for the row, or continues the one in progress
 * (running or waiting): merges variables and data, logs the event (resuming the
 * execution when it waits for that event), then runs steps until the execution waits,
 * completes or fails. Returns the execution's sid. The caller has checked the caller's
 * role and that the row may be triggered; the workflow's archived flag is checked here,
 * under its lock.
 */
export async function triggerWorkflow(ctx: AppContext, input: TriggerInput): Promise<string> {
  const { driver } = input;
  const executionSid = await ctx.db.transaction(async (tx) => {
    await input.before?.(tx);
    // The workflow's lock makes starting an execution take turns: two triggers of one
    // row at once start one execution, and the second continues it.
    const [workflow] = await query<{ is_archived: boolean; organization_sid: string }>(tx, sql`
      SELECT is_archived, organization_sid FROM workflows WHERE sid = ${input.workflowSid} FOR UPDATE`);
    if (!workflow) throw errors.notFound();
    if (workflow.is_archived) throw errors.badRequest(ARCHIVED);
    let [execution] = await query<{ sid: string; status: ExecutionStatus; waiting_for: string | null }>(tx, sql`
      SELECT sid, status, waiting_for FROM workflow_executions
       WHERE workflow_sid = ${input.workflowSid} AND row_sid = ${input.rowSid} AND status IN ('running', 'waiting')
       ORDER BY date_created DESC, sid DESC LIMIT 1 FOR UPDATE`);
    if (!execution) {
      execution = { sid: newSid(), status: 'running', waiting_for: null };
      await tx.execute(sql`
        INSERT INTO workflow_executions (sid, organization_sid, workflow_sid, row_sid, status, started_by)
        VALUES (${execution.sid}, ${workflow.organization_sid}, ${input.workflowSid}, ${input.rowSid}, 'running', ${driver.userSid})`);
      await log(tx, execution.sid, driver.userSid, { event: 'started', status: 'info', message: 'Started the execution' });
    } else {
      const where = execution.status === 'waiting' ? `it waits for the event ${quote(execution.waiting_for ?? '')}` : 'it is running';
      await log(tx, execution.sid, driver.userSid, { event: 'triggered', status: 'info', message: `Triggered again; ${where}` });
    }
    const variables = input.variables ?? {};
    const data = input.data ?? {};
    if (Object.keys(variables).length || Object.keys(data).length) {
      // Merged by every trigger, so bounded (ROW_MAX_BYTES each, as JSON): an execution never grows without end.
      const [merged] = await query<{ variables_bytes: number; data_bytes: number }>(tx, sql`
        UPDATE workflow_executions
           SET variables = variables || ${JSON.stringify(variables)}::jsonb, data = data || ${JSON.stringify(data)}::jsonb, date_updated = now()
         WHERE sid = ${execution.sid}
        RETURNING octet_length(variables::text) AS variables_bytes, octet_length(data::text) AS data_bytes`);
      for (const [field, bytes] of [['variables', merged.variables_bytes], ['workflow_data', merged.data_bytes]] as const) {
        if (Number(bytes) > ctx.config.rowMaxBytes) {
          throw errors.field(field, `The execution's ${field === 'variables' ? 'variables' : 'data'} would hold ${Number(bytes)} bytes; they hold at most ${ctx.config.rowMaxBytes} bytes (ROW_MAX_BYTES, as JSON).`);
        }
      }
      const keys = (o: Record<string, unknown>) => Object.keys(o).join(', ') || 'none';
      await log(tx, execution.sid, driver.userSid, {
        event: 'updated', status: 'info', message: `Updated variables: ${keys(variables)}; data: ${keys(data)}`,
      });
    }
    if (input.event !== undefined) {
      const resumes = execution.status === 'waiting' && execution.waiting_for === input.event;
      const note = resumes ? 'the execution resumes'
        : execution.status === 'waiting' ? `the execution waits for ${quote(execution.waiting_for ?? '')}, so nothing else happens`
          : 'the execution does not wait for an event, so nothing else happens';
      await log(tx, execution.sid, driver.userSid, { event: input.event, status: 'received', message: `Received the event ${quote(input.event)}; ${note}` });
      if (resumes) {
        await tx.execute(sql`UPDATE workflow_executions SET status = 'running', waiting_for = NULL, date_updated = now() WHERE sid = ${execution.sid}`);
        await log(tx, execution.sid, driver.userSid, { event: 'resumed', status: 'info', message: `Resumed on the event ${quote(input.event)}` });
      }
    }
    return execution.sid;
  });
  await advance(ctx, executionSid, driver);
  return executionSid;
}

export const ARCHIVED = 'The workflow is archived; an archived workflow cannot be triggered.';

/** Runs the execution's next steps, one transaction each, while it is running. */
async function advance(ctx: AppContext, executionSid: string, driver: Driver): Promise<void> {
  // Each step runs at most once per execution, so a workflow's steps (at most MAX_STEPS)
  // and the closing transaction bound the loop.
  for (let i = 0; i <= MAX_STEPS + 1; i += 1) {
    if (!(await ctx.db.transaction((tx) => runNextStep(ctx, tx, executionSid, driver)))) return;
  }
}

interface LockedExecution {
  sid: string;
  organization_sid: string;
  workflow_sid: string;
  workflow_name: string;
  row_sid: string;
  row_name: string;
  row_description: string;
  row_table_sid: string;
  status: ExecutionStatus;
  current_step_sid: string | null;
  current_order: number | null;
  variables: Record<string, unknown>;
  data: Record<string, unknown>;
}

interface NextStep {
  sid: string;
  name: string;
  order: number;
  data: Record<string, unknown>;
  widget_name: string;
  kind: string;
}

/**
 * Locks the execution and runs its next step, with the step's effect, its log entries
 * and the execution's new position in this one transaction. A failing step is rolled
 * back alone (a savepoint): the row stays as it was before it, and the execution is
 * marked failed. Returns whether there may be more to run.
 */
async function runNextStep(ctx: AppContext, tx: Db, executionSid: string, driver: Driver): Promise<boolean> {
  // Lock first, then read: a locking query that also joins would re-check a row another
  // transaction just changed against the joined rows it read before the wait (stale).
  const [locked] = await query<{ status: ExecutionStatus }>(tx, sql`
    SELECT status FROM workflow_executions WHERE sid = ${executionSid} FOR UPDATE`);
  if (!locked || locked.status !== 'running') return false;
  const [execution] = await query<LockedExecution>(tx, sql`
    SELECT e.sid, e.organization_sid, e.workflow_sid, w.name AS workflow_name, e.row_sid, r.name AS row_name,
           r.description AS row_description, r.table_sid AS row_table_sid, e.status, e.current_step_sid,
           cs."order" AS current_order, e.variables, e.data
      FROM workflow_executions e
      JOIN workflows w ON w.sid = e.workflow_sid
      JOIN record_rows r ON r.sid = e.row_sid
      LEFT JOIN steps cs ON cs.sid = e.current_step_sid
     WHERE e.sid = ${executionSid}`);
  const fail = async (error: string, stepSid: string | null) => {
    await tx.execute(sql`
      UPDATE workflow_executions SET status = 'failed', error = ${error}, current_step_sid = ${stepSid}, waiting_for = NULL, date_updated = now()
       WHERE sid = ${executionSid}`);
    await log(tx, executionSid, driver.userSid, { event: 'failed', status: 'error', message: error, stepSid });
    return false;
  };
  // Deleting a step moves executions at it back to the step before (steps/service.ts), so
  // a current step that is gone is an inconsistency: stop rather than start over.
  if (execution.current_step_sid !== null && execution.current_order === null) {
    return fail('The execution\'s current step no longer exists; trigger the workflow again to start a new execution.', null);
  }
  const [step] = await query<NextStep>(tx, sql`
    SELECT s.sid, s.name, s."order", s.data, wd.name AS widget_name, wd.kind
      FROM steps s JOIN widgets wd ON wd.sid = s.widget_sid
     WHERE s.workflow_sid = ${execution.workflow_sid} AND s."order" > ${execution.current_order ?? 0}
     ORDER BY s."order" LIMIT 1`);
  if (!step) {
    await tx.execute(sql`UPDATE workflow_executions SET status = 'completed', waiting_for = NULL, date_updated = now() WHERE sid = ${executionSid}`);
    await log(tx, executionSid, driver.userSid, { event: 'completed', status: 'ok', message: 'Completed: every step has run' });
    return false;
  }

  const label = `Step ${step.order} ${quote(step.name)}`;
  const unknown = new Set<string>();
  const settings = render(step.data, await templateContext(tx, execution), unknown) as Record<string, unknown>;
  if (unknown.size) {
    await log(tx, executionSid, driver.userSid, {
      event: 'template', status: 'warning', stepSid: step.sid,
      message: `${label}: these references name nothing and were rendered as empty text: ${[...unknown].map((r) => `{{${r}}}`).join(', ')}`,
    });
  }
  let outcome: StepOutcome;
  try {
    outcome = await tx.transaction((savepoint) => performStep(savepoint, {
      organizationSid: execution.organization_sid,
      row: { sid: execution.row_sid, name: execution.row_name, tableSid: execution.row_table_sid },
      workflowName: execution.workflow_name,
      step: { sid: step.sid, name: step.name, order: step.order, kind: step.kind, widgetName: step.widget_name },
      settings,
      userSid: driver.userSid,
      personnelSid: driver.personnelSid,
      salesContact: ctx.config.salesContact,
      rowMaxBytes: ctx.config.rowMaxBytes,
    }));
  } catch (error) {
    const message = failureMessage(error);
    // Anything else (the database going away …) fails the request instead: this
    // transaction rolls back whole, the execution stays at the step before, and the next
    // trigger runs this step again.
    if (message === undefined) throw error;
    await log(tx, executionSid, driver.userSid, { event: 'step_failed', status: 'error', message: `${label} failed: ${message}`, stepSid: step.sid });
    return fail(`${label} failed: ${message}`, step.sid);
  }
  if (outcome.waitFor !== undefined) {
    await tx.execute(sql`
      UPDATE workflow_executions SET status = 'waiting', waiting_for = ${outcome.waitFor}, current_step_sid = ${step.sid}, date_updated = now()
       WHERE sid = ${executionSid}`);
    await log(tx, executionSid, driver.userSid, { event: 'waiting', status: 'info', message: `${label}: ${outcome.message}`, stepSid: step.sid });
    return false;
  }
  await tx.execute(sql`UPDATE workflow_executions SET current_step_sid = ${step.sid}, date_updated = now() WHERE sid = ${executionSid}`);
  await log(tx, executionSid, driver.userSid, { event: 'step_completed', status: 'ok', message: `${label}: ${outcome.message}`, stepSid: step.sid });
  return true;
}

/** What a step's references may name: the row as it is now (after the steps before), the variables and the data. */
async function templateContext(tx: Db, execution: LockedExecution): Promise<TemplateContext> {
  const cells = new Map<string, string>();
  for (const cell of (await cellsOfRows(tx, [execution.row_sid])).get(execution.row_sid) ?? []) {
    // The first column (by order) of a name wins.
    if (!cells.has(cell.column.name)) cells.set(cell.column.name, cell.data);
  }
  return {
    row: { sid: execution.row_sid, name: execution.row_name, description: execution.row_description, cells },
    variables: execution.variables ?? {},
    data: execution.data ?? {},
  };
}
