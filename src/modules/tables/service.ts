import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Db } from '../../db/client.js';
import type { Serializer } from '../../core/resource.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { newSid } from '../../core/ids.js';
import { tables } from '../../db/schema.js';
import { columnsOf, findBySid, type TableColumn, type TableRow } from './repository.js';

/**
 * Tables in a shape for a caller; the detail shape's columns of the whole batch come
 * from one query.
 */
export async function serializeTables(db: Db, rows: TableRow[], serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return rows.map((row) => ({ sid: row.sid, name: row.name }));
  const change_permission = permissions.schema.change(membership);
  if (serializer === 'list') {
    return rows.map((row) => ({ sid: row.sid, name: row.name, description: row.description, change_permission }));
  }
  const byTable = new Map<string, Omit<TableColumn, 'table_sid'>[]>();
  for (const { table_sid, ...column } of await columnsOf(db, rows.map((r) => r.sid))) {
    byTable.set(table_sid, [...(byTable.get(table_sid) ?? []), column]);
  }
  return rows.map((row) => ({
    sid: row.sid, name: row.name, description: row.description, columns: byTable.get(row.sid) ?? [],
    date_created: row.date_created, date_updated: row.date_updated, change_permission,
  }));
}

/** One table in a shape. */
export async function serializeTable(db: Db, row: TableRow, serializer: Serializer, membership: Membership) {
  return (await serializeTables(db, [row], serializer, membership))[0];
}

/** Creates a table of the caller's organization. */
export async function createTable(ctx: AppContext, membership: Membership, actor: Actor, body: { name: string; description?: string }) {
  return ctx.db.transaction(async (tx) => {
    const sid = newSid();
    await tx.insert(tables).values({
      sid, organizationSid: membership.organizationSid, name: body.name, description: body.description ?? '', createdBy: actor.userSid,
    });
    return (await findBySid(tx, sid))!;
  });
}

/** The table `sid` for an active member of its organization (404 outside their organizations, 403 for Alumni). */
export async function loadTable(ctx: AppContext, actor: Actor, sid: string) {
  return loadOrganizationRecord(ctx.db, actor, sid, (s) => findBySid(ctx.db, s));
}

/** Changes a table's name or description (Admin). */
export async function changeTable(ctx: AppContext, actor: Actor, sid: string, body: { name?: string; description?: string }) {
  const { row, membership } = await loadTable(ctx, actor, sid);
  if (!permissions.schema.change(membership)) throw errors.forbidden();
  if (!Object.keys(body).length) return { row, membership };
  const updated = await ctx.db.transaction(async (tx) => {
    await tx.update(tables).set({ ...body, dateUpdated: sql`now()` }).where(eq(tables.sid, sid));
    return (await findBySid(tx, sid))!;
  });
  return { row: updated, membership };
}
