// Saved filters (Labii's Filter): a name for a row list's query, of one table, applied to
// the row list with `?filter__sid=`. SQL and decisions together: the resource is small.
import { and, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/client.js';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { ApiError, errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { isoTimestamp, personName } from '../../core/sql.js';
import { toBool } from '../../core/schemas.js';
import { personnel, savedFilters, tables, users as usersTable } from '../../db/schema.js';
import { RowLabiiFilters } from '../rows/schemas.js';
import { labiiConditions } from '../rows/filters.js';

/** What a saved query may hold: the row list's filters but its table (the filter's own) and paging. */
const SAVED = { project__sid: Type.Optional(Type.String({ maxLength: 64 })), ...RowLabiiFilters } as Record<string, ReturnType<typeof Type.Optional>>;
/** Labii's names for ours. */
const ALIASES: Record<string, string> = { name__icontains: 'search' };

type SidOrRef = string | { sid: string };
export interface FilterBody {
  name?: string; description?: string | null; query?: string | Record<string, string | number | boolean>;
  users?: SidOrRef[]; is_archived?: boolean | 'true' | 'false'; table?: SidOrRef;
}

/** The saved query as a query string, each parameter one the row list takes with a value it takes (400 on `query` otherwise). */
export function savedQuery(input: string | Record<string, string | number | boolean>): string {
  const pairs = typeof input === 'string'
    ? [...new URLSearchParams(input.split('___')[0].replace(/^\?/, ''))]
    : Object.entries(input).map(([k, v]) => [k, String(v)] as [string, string]);
  const params = new URLSearchParams();
  for (const [given, value] of pairs) {
    const key = ALIASES[given] ?? given;
    if (!Object.hasOwn(SAVED, key)) {
      throw errors.field('query', `Unknown filter ${given}; a saved filter takes only: ${[...Object.keys(SAVED), ...Object.keys(ALIASES)].join(', ')}.`);
    }
    if (params.has(key)) throw errors.field('query', `${given} is given twice.`);
    const schema = SAVED[key] as { enum?: string[]; maxLength?: number };
    if ((schema.enum && !schema.enum.includes(value)) || (schema.maxLength !== undefined && value.length > schema.maxLength)) throw errors.field('query', `${given}: not a value this filter takes (${value}).`);
    params.set(key, value);
  }
  try {
    labiiConditions('', Object.fromEntries(params)); // the date bounds' own checks
  } catch (e) {
    if (e instanceof ApiError) throw errors.field('query', Object.values(e.body as Record<string, string[]>).flat().join(' '));
    throw e;
  }
  return params.toString();
}

async function checkedUsers(db: Db, orgSid: string, given: SidOrRef[]): Promise<string[]> {
  const sids = [...new Set(given.map((u) => (typeof u === 'string' ? u : u.sid)))];
  const valid = sids.filter(isSid);
  const found = new Set(valid.length ? (await db.select({ sid: personnel.sid }).from(personnel)
    .where(and(eq(personnel.organizationSid, orgSid), inArray(personnel.sid, valid)))).map((r) => r.sid) : []);
  const wrong = given.map((u, i) => [i, typeof u === 'string' ? u : u.sid] as const).filter(([, sid]) => !found.has(sid));
  if (wrong.length) throw errors.fields(Object.fromEntries(wrong.slice(0, 20).map(([i]) => [`users.${i}`, 'Select a personnel record of this organization.'])));
  return sids;
}

export interface FilterRow {
  sid: string; organization_sid: string; name: string; description: string; query: string; users: string[]; is_archived: boolean;
  table: { sid: string; name: string }; owner_sid: string | null; owner: string; date_created: string; date_updated: string;
}

const fields = {
  sid: savedFilters.sid, organization_sid: savedFilters.organizationSid, name: savedFilters.name, description: savedFilters.description,
  query: savedFilters.query, users: sql<string[]>`${savedFilters.users}`, is_archived: savedFilters.isArchived,
  table: sql<{ sid: string; name: string }>`json_build_object('sid', ${tables.sid}, 'name', ${tables.name})`,
  owner_sid: savedFilters.ownerSid, owner: sql<string>`coalesce(${personName(usersTable)}, '')`,
  date_created: isoTimestamp(savedFilters.dateCreated), date_updated: isoTimestamp(savedFilters.dateUpdated),
};

function select(db: Db) {
  return db.select(fields).from(savedFilters).innerJoin(tables, eq(tables.sid, savedFilters.tableSid))
    .leftJoin(personnel, eq(personnel.sid, savedFilters.ownerSid)).leftJoin(usersTable, eq(usersTable.sid, personnel.userSid));
}

export interface FilterListFilter { table__sid?: string; is_archived?: string }

/** The filters the member reads (permissions.filter.read, as SQL), with the list's filters. */
function where(membership: Membership, filter: FilterListFilter): SQL {
  const me = membership.personnelSid;
  return and(
    eq(savedFilters.organizationSid, membership.organizationSid),
    filter.table__sid !== undefined ? eq(savedFilters.tableSid, filter.table__sid) : undefined,
    filter.is_archived !== undefined ? eq(savedFilters.isArchived, ['true', '1'].includes(filter.is_archived.toLowerCase())) : undefined,
    membership.role === 'admin' ? undefined : sql`(${savedFilters.ownerSid} = ${me} OR ${savedFilters.users} @> ${JSON.stringify([me])}::jsonb)`,
  )!;
}

export async function countFilters(db: Db, membership: Membership, filter: FilterListFilter): Promise<number> {
  const [row] = await db.select({ n: count() }).from(savedFilters).where(where(membership, filter));
  return row.n;
}

/** A page of the filters the member reads, oldest first. */
export async function pageFilters(db: Db, membership: Membership, filter: FilterListFilter, limit: number, offset: number): Promise<FilterRow[]> {
  return select(db).where(where(membership, filter)).orderBy(savedFilters.dateCreated, savedFilters.sid).limit(limit).offset(offset);
}

async function findFilter(db: Db, sid: string): Promise<FilterRow | undefined> {
  const [row] = await select(db).where(eq(savedFilters.sid, sid));
  return row;
}

export function serializeFilter(row: FilterRow, serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const base = {
    sid: row.sid, name: row.name, description: row.description, query: row.query, users: row.users, is_archived: row.is_archived,
    table: row.table, change_permission: permissions.filter.change(membership, row),
  };
  if (serializer === 'list') return base;
  return { ...base, owner: row.owner, date_created: row.date_created, date_updated: row.date_updated };
}

const boolOf = (v: FilterBody['is_archived']) => (v === undefined ? undefined : toBool(v));

/** Saves a filter of a table of the caller's organization (any active member; its owner). */
export async function createFilter(ctx: AppContext, membership: Membership, tableSid: string | undefined, body: FilterBody & { name: string }) {
  const table = tableSid ?? (typeof body.table === 'string' ? body.table : body.table?.sid);
  const field = tableSid ? 'table__sid' : 'table';
  if (!table) throw errors.field('table__sid', 'Give the filter\'s table: ?table__sid= (or `table` in the body).');
  const [found] = isSid(table) ? await ctx.db.select({ sid: tables.sid }).from(tables)
    .where(and(eq(tables.sid, table), eq(tables.organizationSid, membership.organizationSid))) : [];
  if (!found) throw errors.field(field, 'No table with this sid in this organization.');
  const query = savedQuery(body.query ?? '');
  const users = await checkedUsers(ctx.db, membership.organizationSid, body.users ?? []);
  const sid = newSid();
  await ctx.db.insert(savedFilters).values({
    sid, organizationSid: membership.organizationSid, tableSid: table, name: body.name, description: body.description ?? '',
    query, users, isArchived: boolOf(body.is_archived) ?? false, ownerSid: membership.personnelSid,
  });
  return (await findFilter(ctx.db, sid))!;
}

/** The filter `sid` for a member who reads it (404 otherwise, as for a record of another organization). */
export async function loadFilter(ctx: AppContext, actor: Actor, sid: string) {
  const loaded = await loadOrganizationRecord(ctx.db, actor, sid, (s) => findFilter(ctx.db, s));
  if (loaded.membership.role === 'alumni') throw errors.forbidden();
  if (!permissions.filter.read(loaded.membership, loaded.row)) throw errors.notFound();
  return loaded;
}

/** Changes a filter (its owner or an Admin). */
export async function changeFilter(ctx: AppContext, actor: Actor, sid: string, body: FilterBody) {
  const { row, membership } = await loadFilter(ctx, actor, sid);
  if (!permissions.filter.change(membership, row)) throw errors.forbidden();
  const query = body.query !== undefined ? savedQuery(body.query) : undefined;
  const users = body.users ? await checkedUsers(ctx.db, row.organization_sid, body.users) : undefined;
  await ctx.db.update(savedFilters).set({
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description ?? '' } : {}),
    ...(query !== undefined ? { query } : {}),
    ...(users !== undefined ? { users } : {}),
    ...(body.is_archived !== undefined ? { isArchived: boolOf(body.is_archived) } : {}),
    dateUpdated: sql`now()`,
  }).where(eq(savedFilters.sid, sid));
  return { row: (await findFilter(ctx.db, sid))!, membership };
}

/** Deletes a filter (its owner or an Admin). */
export async function deleteFilter(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  const { row, membership } = await loadFilter(ctx, actor, sid);
  if (!permissions.filter.change(membership, row)) throw errors.forbidden();
  await ctx.db.delete(savedFilters).where(eq(savedFilters.sid, sid));
}

/**
 * The row list's query with the saved filter `filter__sid` applied: its table and its
 * parameters, the request's own parameters winning. 400 on filter__sid for a filter the
 * member does not read (or of another organization).
 */
export async function withSavedFilter<Q extends { filter__sid?: string; table__sid?: string }>(db: Db, membership: Membership, q: Q): Promise<Omit<Q, 'filter__sid'>> {
  const { filter__sid: sid, ...own } = q;
  if (sid === undefined) return own;
  const found = isSid(sid) ? await findFilter(db, sid) : undefined;
  if (!found || found.organization_sid !== membership.organizationSid || !permissions.filter.read(membership, found)) {
    throw errors.field('filter__sid', 'No saved filter with this sid that you may use in this organization.');
  }
  const defined = Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined));
  return { table__sid: found.table.sid, ...Object.fromEntries(new URLSearchParams(found.query)), ...defined } as Omit<Q, 'filter__sid'>;
}
