import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { executionLog, executions, rows, steps, users, workflows } from '../../db/schema.js';
import { isoTimestamp, personName } from '../../core/sql.js';
import type { Membership, ProjectRole } from '../../core/access.js';
import { readableRows, roleOnRows } from '../rows/access.js';
import type { ExecutionStatus } from './schemas.js';

type Ref = { sid: string; name: string };

const starter = alias(users, 'starter');
const currentStep = alias(steps, 'current_step');

/** A user's display name: first and last name, or else the email. */

const fields = {
  sid: executions.sid,
  organization_sid: executions.organizationSid,
  workflow: sql<Ref>`json_build_object('sid', ${workflows.sid}, 'name', ${workflows.name})`,
  row: sql<Ref>`json_build_object('sid', ${rows.sid}, 'name', ${rows.name})`,
  project_sid: rows.projectSid,
  status: executions.status,
  current_step: sql<Ref | null>`CASE WHEN ${currentStep.sid} IS NULL THEN NULL ELSE json_build_object('sid', ${currentStep.sid}, 'name', ${currentStep.name}) END`,
  waiting_for: executions.waitingFor,
  error: executions.error,
  variables: executions.variables,
  data: executions.data,
  started_by: personName(starter),
  date_created: isoTimestamp(executions.dateCreated),
  date_updated: isoTimestamp(executions.dateUpdated),
};

export interface ExecutionRecord {
  sid: string; organization_sid: string; workflow: Ref; row: Ref; project_sid: string; status: ExecutionStatus;
  current_step: Ref | null; waiting_for: string | null; error: string | null;
  variables: Record<string, unknown>; data: Record<string, unknown>; started_by: string;
  date_created: string; date_updated: string; permission: ProjectRole | null;
}

export interface LogRecord {
  date_created: string; user: Ref | null; event: string; status: string; message: string; step: Ref | null;
}

export interface ExecutionFilter {
  workflow__sid?: string;
  row__sid?: string;
}

/** Executions with their workflow, row, current step, starter and the project role of `personnelSid` on the row. */
function select(db: Db, personnelSid: string) {
  return db.select({ ...fields, permission: roleOnRows(personnelSid) }).from(executions)
    .innerJoin(workflows, eq(workflows.sid, executions.workflowSid))
    .innerJoin(rows, eq(rows.sid, executions.rowSid))
    .leftJoin(currentStep, eq(currentStep.sid, executions.currentStepSid))
    .leftJoin(starter, eq(starter.sid, executions.startedBy));
}

function where(orgSid: string, membership: Membership, filter: ExecutionFilter): SQL {
  return and(
    eq(executions.organizationSid, orgSid),
    filter.workflow__sid ? eq(executions.workflowSid, filter.workflow__sid) : undefined,
    filter.row__sid ? eq(executions.rowSid, filter.row__sid) : undefined,
    readableRows(membership),
  )!;
}

export async function countExecutions(db: Db, orgSid: string, membership: Membership, filter: ExecutionFilter): Promise<number> {
  const [row] = await db.select({ n: count() }).from(executions).innerJoin(rows, eq(rows.sid, executions.rowSid))
    .where(where(orgSid, membership, filter));
  return row.n;
}

/** A page of the executions the member may read (those of rows they may read), oldest first. */
export async function pageExecutions(db: Db, orgSid: string, membership: Membership, filter: ExecutionFilter, limit: number, offset: number) {
  return (await select(db, membership.personnelSid).where(where(orgSid, membership, filter))
    .orderBy(executions.dateCreated, executions.sid).limit(limit).offset(offset)) as ExecutionRecord[];
}

/** One execution, with the project role of `personnelSid` on its row. */
export async function findExecution(db: Db, sid: string, personnelSid: string): Promise<ExecutionRecord | undefined> {
  const [row] = await select(db, personnelSid).where(eq(executions.sid, sid));
  return row as ExecutionRecord | undefined;
}

const logUser = alias(users, 'log_user');

/** The logs of several executions (a whole page) in one query, each oldest first. */
export async function logsOf(db: Db, executionSids: string[]): Promise<Map<string, LogRecord[]>> {
  const byExecution = new Map<string, LogRecord[]>(executionSids.map((sid) => [sid, []]));
  if (!executionSids.length) return byExecution;
  const found = await db.select({
    execution_sid: executionLog.executionSid,
    date_created: isoTimestamp(executionLog.dateCreated),
    user: sql<Ref | null>`CASE WHEN ${logUser.sid} IS NULL THEN NULL ELSE json_build_object('sid', ${logUser.sid}, 'name', ${personName(logUser)}) END`,
    event: executionLog.event,
    status: executionLog.status,
    message: executionLog.message,
    step: sql<Ref | null>`CASE WHEN ${steps.sid} IS NULL THEN NULL ELSE json_build_object('sid', ${steps.sid}, 'name', ${steps.name}) END`,
  }).from(executionLog)
    .leftJoin(logUser, eq(logUser.sid, executionLog.userSid))
    .leftJoin(steps, eq(steps.sid, executionLog.stepSid))
    .where(inArray(executionLog.executionSid, executionSids))
    .orderBy(executionLog.executionSid, asc(executionLog.id));
  for (const { execution_sid, ...entry } of found) byExecution.get(execution_sid)!.push(entry);
  return byExecution;
}
