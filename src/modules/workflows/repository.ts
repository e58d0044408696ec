import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { tables, users, workflows } from '../../db/schema.js';
import { isoTimestamp, personName } from '../../core/sql.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';
import { runPrepared } from '../../core/prepared.js';

const creator = alias(users, 'creator');

const fields = {
  sid: workflows.sid,
  organization_sid: workflows.organizationSid,
  name: workflows.name,
  description: workflows.description,
  parent: workflows.parent,
  table_sid: workflows.tableSid,
  table: sql<{ sid: string; name: string } | null>`CASE WHEN ${tables.sid} IS NULL THEN NULL ELSE json_build_object('sid', ${tables.sid}, 'name', ${tables.name}) END`,
  is_archived: workflows.isArchived,
  // By the steps' (workflow_sid, order) index; a page's workflows each count in the page's one query.
  number_of_steps: sql<number>`(SELECT count(*)::int FROM steps s WHERE s.workflow_sid = ${workflows.sid})`,
  created_by: personName(creator),
  date_created: isoTimestamp(workflows.dateCreated),
  date_updated: isoTimestamp(workflows.dateUpdated),
};

export interface WorkflowRecord {
  sid: string; organization_sid: string; name: string; description: string; parent: number | null;
  table_sid: string | null; table: { sid: string; name: string } | null; is_archived: boolean; number_of_steps: number; created_by: string;
  date_created: string; date_updated: string;
}

function select<E extends Record<string, SQL>>(db: Db, extra: E = {} as E) {
  return db.select({ ...fields, ...extra }).from(workflows)
    .leftJoin(tables, eq(tables.sid, workflows.tableSid))
    .leftJoin(creator, eq(creator.sid, workflows.createdBy));
}

/** The organization's workflows (of one table, archived or not): values or placeholders, the same SQL. */
function where(orgSid: unknown, tableSid?: unknown, isArchived?: unknown): SQL {
  return and(
    eq(workflows.organizationSid, orgSid as string),
    tableSid ? eq(workflows.tableSid, tableSid as string) : undefined,
    isArchived !== undefined ? eq(workflows.isArchived, isArchived as boolean) : undefined,
  )!;
}

function countQuery(db: Db, orgSid: unknown, tableSid?: unknown, isArchived?: unknown) {
  return db.select({ n: count() }).from(workflows).where(where(orgSid, tableSid, isArchived));
}

export async function countWorkflows(db: Db, orgSid: string, tableSid?: string, isArchived?: boolean): Promise<number> {
  const [row] = await countQuery(db, orgSid, tableSid, isArchived);
  return row.n;
}

/** A page of an organization's workflows (or those specific to one table), oldest first, with their count. */
export async function pageWorkflows(db: Db, orgSid: string, tableSid: string | undefined, limit: number, offset: number,
  isArchived?: boolean): Promise<Counted<WorkflowRecord>> {
  const shape = `${tableSid ? 'table' : ''},${isArchived === undefined ? '' : 'archived'}`;
  return counted(await runPrepared(db, pageQuery, shape, { org: orgSid, table: tableSid || undefined, archived: isArchived, limit, offset }, { generic: true }));
}

/** The page query with its count for `shape` (core/prepared.ts): "table" and "archived" filter, every value a placeholder. */
function pageQuery(db: Db, shape: string) {
  const [table, archived] = shape.split(',').map((name) => (name ? sql.placeholder(name) : undefined));
  const org = sql.placeholder('org');
  return select(db, { total: totalOf(countQuery(db, org, table, archived)) })
    .where(where(org, table, archived)).orderBy(workflows.dateCreated, workflows.sid).limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
}

export async function findWorkflow(db: Db, sid: string): Promise<WorkflowRecord | undefined> {
  const [row] = await select(db).where(eq(workflows.sid, sid));
  return row;
}

/** The workflow `sid` if it belongs to organization `orgSid`. */
export async function findWorkflowInOrganization(db: Db, orgSid: string, sid: string): Promise<WorkflowRecord | undefined> {
  const [row] = await select(db).where(and(eq(workflows.sid, sid), eq(workflows.organizationSid, orgSid)));
  return row;
}
