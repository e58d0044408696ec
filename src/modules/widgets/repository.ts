import { and, count, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { widgets } from '../../db/schema.js';
import { isoTimestamp } from '../../core/sql.js';

const fields = {
  sid: widgets.sid,
  organization_sid: widgets.organizationSid,
  name: widgets.name,
  description: widgets.description,
  price: sql<string>`${widgets.price}::text`,
  addable_at_readonly: widgets.addableAtReadonly,
  kind: widgets.kind,
  icon: widgets.icon,
  notes: widgets.notes,
  usecase: widgets.usecase,
  documentation_url: widgets.documentationUrl,
  allow_multiple: widgets.allowMultiple,
  is_readonly: widgets.isReadonly,
  is_public: widgets.isPublic,
  date_created: isoTimestamp(widgets.dateCreated),
  date_updated: isoTimestamp(widgets.dateUpdated),
};

export interface WidgetRow {
  sid: string; organization_sid: string | null; name: string; description: string; price: string;
  addable_at_readonly: boolean; kind: string; icon: string; notes: string; usecase: string; documentation_url: string;
  allow_multiple: boolean; is_readonly: boolean; is_public: boolean; date_created: string; date_updated: string;
}

/** The widgets an organization uses: the built-in ones and its own. */
export function usableBy(orgSid: string): SQL {
  return or(isNull(widgets.organizationSid), eq(widgets.organizationSid, orgSid))!;
}

export async function countUsable(db: Db, orgSid: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(widgets).where(usableBy(orgSid));
  return row.n;
}

/** A page of the widgets an organization uses: built-in ones first, then its own, oldest first. */
export async function pageUsable(db: Db, orgSid: string, limit: number, offset: number): Promise<WidgetRow[]> {
  return db.select(fields).from(widgets).where(usableBy(orgSid))
    .orderBy(sql`${widgets.organizationSid} IS NOT NULL`, widgets.dateCreated, widgets.sid).limit(limit).offset(offset);
}

export async function findBySid(db: Db, sid: string): Promise<WidgetRow | undefined> {
  const [row] = await db.select(fields).from(widgets).where(eq(widgets.sid, sid));
  return row;
}

/** The widget `sid` if organization `orgSid` may use it (built-in or its own). */
export async function findUsable(db: Db, orgSid: string, sid: string): Promise<WidgetRow | undefined> {
  const [row] = await db.select(fields).from(widgets).where(and(eq(widgets.sid, sid), usableBy(orgSid)));
  return row;
}
