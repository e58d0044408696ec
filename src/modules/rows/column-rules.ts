// A table's column rules on a new row (issue 24, Labii's columns): a column's
// `default_value` fills the cell the body leaves out, and an `is_required` column must end
// up with a value. Applied by createRow before its checks, so a default is checked and
// debited as any other cell value (cells/write.ts).
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';

/**
 * The cell values of a new row of table `tableSid` with the columns' defaults added for
 * the columns the body leaves out (archived columns give none); 400 naming each required
 * column left without a value (missing, null or empty).
 */
export async function withColumnRules(db: Db, tableSid: string, values: [string, string | null][]): Promise<[string, string | null][]> {
  const rules = await query<{ sid: string; name: string; default_value: string; is_required: boolean }>(db, sql`
    SELECT sid, name, default_value, is_required FROM record_columns
     WHERE table_sid = ${tableSid} AND NOT is_archived AND (is_required OR default_value <> '')
     ORDER BY "order", sid`);
  if (!rules.length) return values;
  const given = new Set(values.map(([key]) => key));
  const out = [...values, ...rules.filter((c) => c.default_value !== '' && !given.has(c.sid)).map((c): [string, string] => [c.sid, c.default_value])];
  const filled = new Set(out.filter(([, data]) => data !== null && data !== '').map(([key]) => key));
  const missing = rules.filter((c) => c.is_required && !filled.has(c.sid));
  if (missing.length) throw errors.fields(Object.fromEntries(missing.map((c) => [c.sid, requiredMessage(c.name)])));
  return out;
}

/** The words of a required column left without a value (a row's creation, an import's line). */
export function requiredMessage(columnName: string): string {
  return `This column is required: give "${columnName}" a value.`;
}
