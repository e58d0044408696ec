// Sections: SQL. A page of sections is one query (with its count); a page of rows' sections one more.
import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { rows, sections, tables, users, widgets } from '../../db/schema.js';
import { isoTimestamp, personName } from '../../core/sql.js';
import type { Membership, ProjectRole } from '../../core/access.js';
import { readableRows, roleOnRows } from '../rows/access.js';
import { counted, totalOf, type Counted } from '../../core/pagination.js';

const updater = alias(users, 'section_updater');

type Ref = { sid: string; name: string };

export interface SectionRecord {
  sid: string; name: string; description: string; widget: Ref | null; row: Ref; table: Ref; table__name_plural: string;
  order: number; data: string; is_archived: boolean; version: number; updated_by: string;
  date_created: string; date_updated: string; is_locked: boolean; row_archived: boolean; addable_at_readonly: boolean;
  permission: ProjectRole | null;
}

const fields = {
  sid: sections.sid,
  name: sections.name,
  description: sections.description,
  widget: sql<Ref | null>`CASE WHEN ${widgets.sid} IS NULL THEN NULL ELSE json_build_object('sid', ${widgets.sid}, 'name', ${widgets.name}) END`,
  row: sql<Ref>`json_build_object('sid', ${rows.sid}, 'name', ${rows.name})`,
  table: sql<Ref>`json_build_object('sid', ${tables.sid}, 'name', ${tables.name})`,
  table__name_plural: tables.name,
  order: sections.order,
  data: sections.data,
  is_archived: sections.isArchived,
  version: sections.version,
  updated_by: sql<string>`coalesce(${personName(updater)}, '')`,
  date_created: isoTimestamp(sections.dateCreated),
  date_updated: isoTimestamp(sections.dateUpdated),
  is_locked: rows.isLocked,
  row_archived: rows.isArchived,
  addable_at_readonly: sql<boolean>`coalesce(${widgets.addableAtReadonly}, false)`,
};

function select(db: Db, personnelSid: string, total?: SQL<number>) {
  const chosen = { ...fields, permission: roleOnRows(personnelSid) };
  return db.select(total ? { ...chosen, total } : chosen).from(sections)
    .innerJoin(rows, eq(rows.sid, sections.rowSid))
    .innerJoin(tables, eq(tables.sid, sections.tableSid))
    .leftJoin(widgets, eq(widgets.sid, sections.widgetSid))
    .leftJoin(updater, eq(updater.sid, sections.updatedBy));
}

export interface SectionFilter {
  row__sid?: string;
  table__sid?: string;
}

function where(orgSid: string, membership: Membership, filter: SectionFilter): SQL {
  return and(
    eq(sections.organizationSid, orgSid),
    filter.row__sid ? eq(sections.rowSid, filter.row__sid) : undefined,
    filter.table__sid ? eq(sections.tableSid, filter.table__sid) : undefined,
    readableRows(membership),
  )!;
}

function countQuery(db: Db, condition: SQL) {
  return db.select({ n: count() }).from(sections).innerJoin(rows, eq(rows.sid, sections.rowSid)).where(condition);
}

export async function countSections(db: Db, orgSid: string, membership: Membership, filter: SectionFilter): Promise<number> {
  const [row] = await countQuery(db, where(orgSid, membership, filter));
  return row.n;
}

/** A page of sections: a row's in order, or the organization's (or a table's) oldest first. */
export async function pageSections(db: Db, orgSid: string, membership: Membership, filter: SectionFilter, limit: number, offset: number): Promise<Counted<SectionRecord>> {
  const condition = where(orgSid, membership, filter);
  const q = select(db, membership.personnelSid, totalOf(countQuery(db, condition))).where(condition);
  const ordered = filter.row__sid ? q.orderBy(asc(sections.order), asc(sections.sid)) : q.orderBy(asc(sections.dateCreated), asc(sections.sid));
  return counted((await ordered.limit(limit).offset(offset)) as (SectionRecord & { total: number })[]);
}

export async function findSection(db: Db, sid: string, personnelSid: string): Promise<SectionRecord | undefined> {
  const [found] = await select(db, personnelSid).where(eq(sections.sid, sid));
  return found as SectionRecord | undefined;
}

/** The sections of the given rows in order, by row sid, in one query. */
export async function sectionsOfRows(db: Db, rowSids: string[], personnelSid: string): Promise<Map<string, SectionRecord[]>> {
  const byRow = new Map<string, SectionRecord[]>(rowSids.map((sid) => [sid, []]));
  if (!rowSids.length) return byRow;
  const found = await select(db, personnelSid).where(inArray(sections.rowSid, rowSids)).orderBy(asc(sections.order), asc(sections.sid));
  for (const s of found as SectionRecord[]) byRow.get(s.row.sid)!.push(s);
  return byRow;
}
