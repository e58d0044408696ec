// A row's size bound (docs/decisions.md, "Size bounds"): what a row holds — its name, its
// description and its cells' data, each measured as the JSON text a version stores and an
// answer sends — may not pass ROW_MAX_BYTES. Every version holds the whole row, so this
// also bounds a version, and with it what a page of versions, cells or rows can hold.
import { sql, type SQL } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';

/** What a write would make of the row: one cell's new data, a new name or description, or one section's new or changed text. */
export type RowSizeChange = { column: string | SQL; data: string | SQL } | { name?: string; description?: string }
  | { section: string; name: string; description: string; data: string };

/** The bytes of a section as a version holds it: its name, description and content (the JSON text, as a string). */
const sectionBytes = (name: SQL | string, description: SQL | string, data: SQL | string) =>
  sql`(octet_length(to_jsonb(${name}::text)::text) + octet_length(to_jsonb(${description}::text)::text) + octet_length(to_jsonb(${data}::text)::text))`;

/** The bytes row `rowSid` would hold after `change`: a SELECT of one column, `bytes`. */
export function rowSize(rowSid: string | SQL, change: RowSizeChange): SQL {
  const json = (value: unknown) => sql`octet_length(to_jsonb(${value}::text)::text)`;
  const cellColumn = 'column' in change ? change.column : null;
  const section = 'section' in change ? change : null;
  return sql`
    SELECT (SELECT coalesce(sum(octet_length(to_jsonb(c.data)::text)), 0) FROM cells c
             WHERE c.row_sid = r.sid AND c.column_sid IS DISTINCT FROM ${cellColumn}::text)
         + ${'column' in change ? json(change.data) : sql`0`}
         + (SELECT coalesce(sum(${sectionBytes(sql`s.name`, sql`s.description`, sql`s.data`)}), 0) FROM sections s
             WHERE s.row_sid = r.sid AND s.sid IS DISTINCT FROM ${section?.section ?? null}::text)
         + ${section ? sectionBytes(section.name, section.description, section.data) : sql`0`}
         + ${'name' in change && change.name !== undefined && !section ? json(change.name) : sql`octet_length(to_jsonb(r.name)::text)`}
         + ${'description' in change && change.description !== undefined && !section ? json(change.description) : sql`octet_length(to_jsonb(r.description)::text)`}
           AS bytes
      FROM record_rows r WHERE r.sid = ${rowSid}`;
}

/** Refuses (400 on `field`) a row that would hold `bytes` when it may hold at most `max`. */
export function refuseOversize(bytes: number | string | null | undefined, max: number, field: string): void {
  if (bytes !== null && bytes !== undefined && Number(bytes) > max) {
    throw errors.field(field, `The row would hold ${Number(bytes)} bytes; a row holds at most ${max} bytes (ROW_MAX_BYTES: its name, description and cells, as JSON).`);
  }
}

/**
 * Refuses (400 on `field`) a change that would make row `rowSid` hold more than `max`
 * bytes. Called under the row's lock, so the sizes read are the row's as the write finds it.
 */
export async function checkRowSize(tx: Db, rowSid: string, change: RowSizeChange, max: number, field: string): Promise<void> {
  const [size] = await query<{ bytes: number }>(tx, rowSize(rowSid, change));
  refuseOversize(size?.bytes, max, field);
}
