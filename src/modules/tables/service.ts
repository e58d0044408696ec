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
import { changedFields, logActivities } from '../activities/log.js';
import { codeTaken, columnsOf, countsOf, findBySid, freeUniqueCode, type TableColumn, type TableRow } from './repository.js';

/** The body fields a table takes on creation and change. */
export interface TableFields {
  name?: string; name_plural?: string; name_singular?: string; unique_code?: string; description?: string; icon?: string;
  table_type?: string; order?: number; is_archived?: boolean; name_system?: string; metadata?: unknown;
}

/** The columns of the body's fields (those it has); `name` and `name_plural` are one column (name_plural wins). */
function tableColumns(body: TableFields) {
  const name = body.name_plural ?? body.name;
  return {
    ...(name !== undefined ? { name } : {}),
    ...(body.name_singular !== undefined ? { nameSingular: body.name_singular } : {}),
    ...(body.unique_code !== undefined ? { uniqueCode: body.unique_code } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.icon !== undefined ? { icon: body.icon } : {}),
    ...(body.table_type !== undefined ? { tableType: body.table_type } : {}),
    ...(body.order !== undefined ? { order: body.order } : {}),
    ...(body.is_archived !== undefined ? { isArchived: body.is_archived } : {}),
    ...(body.name_system !== undefined ? { nameSystem: body.name_system } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
  };
}

/**
 * Tables in a shape for a caller; the counts and the detail shape's columns of the whole
 * batch come from one query each.
 */
export async function serializeTables(db: Db, rows: TableRow[], serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return rows.map((row) => ({ sid: row.sid, name: row.name }));
  const change_permission = permissions.schema.change(membership);
  const counts = await countsOf(db, rows.map((r) => r.sid));
  const summary = (row: TableRow) => ({
    sid: row.sid, name: row.name, name_singular: row.name_singular, name_plural: row.name, unique_code: row.unique_code,
    icon: row.icon, table_type: row.table_type, order: row.order, is_archived: row.is_archived, name_system: row.name_system,
    description: row.description,
    ...(counts.get(row.sid) ?? { number_of_records: 0, number_of_columns: 0, number_of_workflows: 0 }),
  });
  if (serializer === 'list') return rows.map((row) => ({ ...summary(row), change_permission }));
  const byTable = new Map<string, Omit<TableColumn, 'table_sid'>[]>();
  for (const { table_sid, ...column } of await columnsOf(db, rows.map((r) => r.sid))) {
    byTable.set(table_sid, [...(byTable.get(table_sid) ?? []), column]);
  }
  return rows.map((row) => ({
    ...summary(row), metadata: row.metadata, columns: byTable.get(row.sid) ?? [],
    date_created: row.date_created, date_updated: row.date_updated, change_permission,
  }));
}

/** One table in a shape. */
export async function serializeTable(db: Db, row: TableRow, serializer: Serializer, membership: Membership) {
  return (await serializeTables(db, [row], serializer, membership))[0];
}

const CODE_TAKEN = 'Another table of this organization has this code.';

/** Creates a table of the caller's organization (name or name_plural required; a unique code made from the name when not given). */
export async function createTable(ctx: AppContext, membership: Membership, actor: Actor, body: TableFields) {
  const name = body.name_plural ?? body.name;
  if (name === undefined) throw errors.field('name', 'This field is required (or send name_plural).');
  const orgSid = membership.organizationSid;
  return ctx.db.transaction(async (tx) => {
    // One creator of an organization's tables at a time: the free code found is still free at the insert.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`record_tables:${orgSid}`}))`);
    if (body.unique_code !== undefined && await codeTaken(tx, orgSid, body.unique_code)) throw errors.field('unique_code', CODE_TAKEN);
    const sid = newSid();
    await tx.insert(tables).values({
      sid, organizationSid: orgSid, createdBy: actor.userSid, ...tableColumns(body), name,
      nameSingular: body.name_singular ?? name, uniqueCode: body.unique_code ?? await freeUniqueCode(tx, orgSid, name),
    });
    await logActivities(tx, [{ organizationSid: orgSid, userSid: actor.userSid, model: 'table', objectSid: sid, target: name, action: 'Created' }]);
    return (await findBySid(tx, sid))!;
  });
}

/** The table `sid` for an active member of its organization (404 outside their organizations, 403 for Alumni). */
export async function loadTable(ctx: AppContext, actor: Actor, sid: string) {
  return loadOrganizationRecord(ctx.db, actor, sid, (s) => findBySid(ctx.db, s));
}

/** A table's fields an activity line names when they change (`name` is also name_plural). */
const LOGGED_FIELDS = ['name', 'name_singular', 'unique_code', 'description', 'icon', 'table_type', 'order', 'is_archived', 'name_system', 'metadata'] as const;

/** Changes a table (Admin); an activity line names the fields that changed. */
export async function changeTable(ctx: AppContext, actor: Actor, sid: string, body: TableFields) {
  const { row, membership } = await loadTable(ctx, actor, sid);
  if (!permissions.schema.change(membership)) throw errors.forbidden();
  if (!Object.keys(body).length) return { row, membership };
  if (body.unique_code !== undefined && await codeTaken(ctx.db, row.organization_sid, body.unique_code, sid)) {
    throw errors.field('unique_code', CODE_TAKEN);
  }
  const updated = await ctx.db.transaction(async (tx) => {
    await tx.update(tables).set({ ...tableColumns(body), dateUpdated: sql`now()` }).where(eq(tables.sid, sid));
    const after = (await findBySid(tx, sid))!;
    const field = changedFields(row, after, LOGGED_FIELDS);
    if (field) {
      await logActivities(tx, [{ organizationSid: row.organization_sid, userSid: actor.userSid, model: 'table', objectSid: sid, target: after.name, action: 'Updated', field }]);
    }
    return after;
  });
  return { row: updated, membership };
}
