// The columns a cell write names, with their widgets: what the write needs of them (records/cells.ts CellColumn).
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isSid } from '../../core/ids.js';
import { columns, widgets } from '../../db/schema.js';
import type { CellColumn } from './cells.js';

const chosen = {
  sid: columns.sid, name: columns.name, widgetSid: widgets.sid, widgetName: widgets.name, price: widgets.price, addable: widgets.addableAtReadonly,
  kind: widgets.kind, settings: sql<Record<string, unknown>>`${columns.settings}`,
};

/**
 * The column of table `tableSid` with sid `column` (or, with `byName`, else the first
 * column by order with that name) and its widget; undefined when the table has no such column.
 */
export async function findColumnOfTable(db: Db, tableSid: string, column: string, options: { byName?: boolean } = {}): Promise<CellColumn | undefined> {
  const bySid = isSid(column) ? eq(columns.sid, column) : undefined;
  const match = options.byName ? or(bySid, eq(columns.name, column)) : bySid;
  if (!match) return undefined;
  const [found] = await db.select(chosen).from(columns).innerJoin(widgets, eq(widgets.sid, columns.widgetSid))
    .where(and(eq(columns.tableSid, tableSid), match))
    // a sid match before a name match, then the first column by order
    .orderBy(sql`${columns.sid} <> ${column}`, columns.order, columns.sid)
    .limit(1);
  return found;
}

/** The columns of table `tableSid` among `sids`, with their widgets (one query). */
export async function findColumnsOfTable(db: Db, tableSid: string, sids: string[]): Promise<Map<string, CellColumn>> {
  const valid = sids.filter(isSid);
  if (!valid.length) return new Map();
  const found = await db.select(chosen).from(columns).innerJoin(widgets, eq(widgets.sid, columns.widgetSid))
    .where(and(eq(columns.tableSid, tableSid), inArray(columns.sid, valid)));
  return new Map(found.map((c) => [c.sid, c]));
}
