import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { tables, users, workflows } from '../../db/schema.js';
import { isoTimestamp, personName } from '../../core/sql.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';

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

function where(orgSid: string, tableSid?: string, isArchived?: boolean): SQL {
  return and(
    eq(workflows.organizationSid, orgSid),
    tableSid ? eq(workflows.tableSid, tableSid) : undefined,
    isArchived !== undefined ? eq(workflows.isArchived, isArchived) : undefined,
  )!;
}

function countQuery(db: Db, orgSid: string, tableSid?: string, isArchived?: boolean) {
  return db.select({ n: count() }).from(workflows).where(where(orgSid, tableSid, isArchived));
}

export async function countWorkflows(db: Db, orgSid: string, tableSid?: string, isArchived?: boolean): Promise<number> {
  const [row] = await countQuery(db, orgSid, tableSid, isArchived);
  return row.n;
}

/** A page of an organization's workflows (or those specific to one table), oldest first, with their count. */
export async function pageWorkflows(db: Db, orgSid: string, tableSid: string | undefined, limit: number, offset: number,
  isArchived?: boolean): Promise<Counted<WorkflowRecord>> {
  return counted(await select(db, { total: totalOf(countQuery(db, orgSid, tableSid, isArchived)) })
    .where(where(orgSid, tableSid, isArchived)).orderBy(workflows.dateCreated, workflows.sid).limit(limit).offset(offset));
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
