import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { steps, widgets, workflows } from '../../db/schema.js';
import { isoTimestamp } from '../../core/sql.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { runPrepared } from '../../core/prepared.js';
import { named, sizedPage } from '../../core/sized-page.js';

type Ref = { sid: string; name: string };

const fields = {
  sid: steps.sid,
  organization_sid: steps.organizationSid,
  name: steps.name,
  description: steps.description,
  workflow_sid: steps.workflowSid,
  workflow: sql<Ref>`json_build_object('sid', ${workflows.sid}, 'name', ${workflows.name})`,
  widget: sql<Ref>`json_build_object('sid', ${widgets.sid}, 'name', ${widgets.name})`,
  kind: widgets.kind,
  order: steps.order,
  data: steps.data,
  parent: steps.parentSid,
  redirect_to: steps.redirectTo,
  color: steps.color,
  date_created: isoTimestamp(steps.dateCreated),
  date_updated: isoTimestamp(steps.dateUpdated),
};

export interface StepRecord {
  sid: string; organization_sid: string; name: string; description: string; workflow_sid: string; workflow: Ref; widget: Ref;
  kind: string; order: number; data: Record<string, unknown>; parent: string | null; redirect_to: string | null; color: string;
  date_created: string; date_updated: string;
}

export interface StepFilter {
  widget__sid?: string;
  workflow__sid?: string;
}

/** The fields with `extra`; `sub`: as a subquery's (core/sized-page.ts named). */
function select<E extends Record<string, SQL>>(db: Db, extra: E = {} as E, sub = false) {
  const selection = { ...fields, ...extra };
  return db.select(sub ? named(selection) : selection).from(steps)
    .innerJoin(workflows, eq(workflows.sid, steps.workflowSid))
    .innerJoin(widgets, eq(widgets.sid, steps.widgetSid));
}

/** The organization's steps the filter finds: values or placeholders, the same SQL. */
function where(orgSid: unknown, filter: { widget__sid?: unknown; workflow__sid?: unknown }): SQL {
  return and(
    eq(steps.organizationSid, orgSid as string),
    filter.widget__sid ? eq(steps.widgetSid, filter.widget__sid as string) : undefined,
    filter.workflow__sid ? eq(steps.workflowSid, filter.workflow__sid as string) : undefined,
  )!;
}

function countQuery(db: Db, orgSid: unknown, filter: Parameters<typeof where>[1]) {
  return db.select({ n: count() }).from(steps).where(where(orgSid, filter));
}

export async function countSteps(db: Db, orgSid: string, filter: StepFilter): Promise<number> {
  const [row] = await countQuery(db, orgSid, filter);
  return row.n;
}

/**
 * A page of an organization's steps: one workflow's in order, otherwise oldest first; with
 * their count. `maxBytes`: a sized read (the detail shape; core/sized-page.ts).
 */
export async function pageSteps(db: Db, orgSid: string, filter: StepFilter, limit: number, offset: number, maxBytes?: number): Promise<Counted<StepRecord>> {
  const values = { widget__sid: filter.widget__sid || undefined, workflow__sid: filter.workflow__sid || undefined, max_bytes: maxBytes };
  const shape = `${values.widget__sid ? 'widget__sid' : ''},${values.workflow__sid ? 'workflow__sid' : ''},${maxBytes === undefined ? '' : 'sized'}`;
  return counted(await runPrepared(db, pageQuery, shape, { ...values, org: orgSid, limit, offset }, { generic: true }) as (StepRecord & { total: number })[]);
}

/** The most a step is as JSON: its own texts and settings as JSON, and 4 KiB for the rest (sids, dates, its workflow's and widget's names). */
const stepSize = sql<number>`octet_length(json_build_array(${steps.name}, ${steps.description}, ${steps.data}, ${steps.redirectTo}, ${steps.color})::text) + 4096`;

/** The page query with its count for `shape` (core/prepared.ts): the filters it names, every value a placeholder; `sized`: a sized read. */
function pageQuery(db: Db, shape: string) {
  const [widget, workflow, sized] = shape.split(',').map((name) => (name ? sql.placeholder(name) : undefined));
  const org = sql.placeholder('org');
  const filter = { widget__sid: widget, workflow__sid: workflow };
  const total = totalOf(countQuery(db, org, filter));
  const extra: { total: SQL<number> } & Record<string, SQL> = sized ? { total, bytes: stepSize, created: sql`${steps.dateCreated}` } : { total };
  const found = select(db, extra, !!sized).where(where(org, filter));
  const ordered = workflow ? found.orderBy(steps.order) : found.orderBy(steps.dateCreated, steps.sid);
  const page = ordered.limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
  return sized ? sizedPage<typeof page>(db, page.as('page'), [...Object.keys(fields), 'total'], (f) => (workflow ? [f.order] : [f.created, f.sid])) : page;
}

export async function findStep(db: Db, sid: string): Promise<StepRecord | undefined> {
  const [row] = await select(db).where(eq(steps.sid, sid));
  return row as StepRecord | undefined;
}

export interface StepSummary {
  sid: string; name: string; order: number; widget: Ref; kind: string;
}

/** The steps of several workflows (a whole page) in one query, by workflow sid, each in order. */
export async function stepsOfWorkflows(db: Db, workflowSids: string[]): Promise<Map<string, StepSummary[]>> {
  const byWorkflow = new Map<string, StepSummary[]>(workflowSids.map((sid) => [sid, []]));
  if (!workflowSids.length) return byWorkflow;
  const found = await db.select({
    workflow_sid: steps.workflowSid, sid: steps.sid, name: steps.name, order: steps.order,
    widget: sql<Ref>`json_build_object('sid', ${widgets.sid}, 'name', ${widgets.name})`, kind: widgets.kind,
  }).from(steps).innerJoin(widgets, eq(widgets.sid, steps.widgetSid))
    .where(inArray(steps.workflowSid, workflowSids))
    .orderBy(steps.workflowSid, asc(steps.order));
  for (const { workflow_sid, ...step } of found) byWorkflow.get(workflow_sid)!.push(step);
  return byWorkflow;
}

/**
 * Locks workflow `workflowSid` of organization `orgSid` (changes to its steps take turns)
 * and returns its last step's order (0 without steps); undefined when it is not the organization's.
 */
export async function lockWorkflowSteps(db: Db, orgSid: string, workflowSid: string): Promise<number | undefined> {
  const [workflow] = await db.select({ sid: workflows.sid }).from(workflows)
    .where(and(eq(workflows.sid, workflowSid), eq(workflows.organizationSid, orgSid))).for('update');
  if (!workflow) return undefined;
  const [row] = await db.select({ last: sql<number>`coalesce(max(${steps.order}), 0)::int` }).from(steps).where(eq(steps.workflowSid, workflowSid));
  return row.last;
}

/**
 * Moves the steps of a workflow whose order is from `from` to `to` by `delta`. Two passes
 * through negative numbers: the unique (workflow, order) index is checked row by row, so a
 * single UPDATE could collide with a step not moved yet. Orders are ≥ 1 otherwise.
 */
export async function shiftSteps(db: Db, workflowSid: string, from: number, to: number, delta: 1 | -1): Promise<void> {
  if (from > to) return;
  await db.execute(sql`UPDATE steps SET "order" = -("order" + ${delta}) WHERE workflow_sid = ${workflowSid} AND "order" BETWEEN ${from} AND ${to}`);
  await db.execute(sql`UPDATE steps SET "order" = -"order" WHERE workflow_sid = ${workflowSid} AND "order" < 0`);
}
