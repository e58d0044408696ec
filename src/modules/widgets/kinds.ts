// The widget kinds that hold values (docs/labii-compatibility.md, "Widget kinds"): what a
// cell of each may hold, checked on every cell write (cells/write.ts) and on a column's
// default_value, and what settings a column of each takes. A refusal is a 400 on `data`
// (or the field checked) that names the problem.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';

/** A column's settings for its widget (record_columns.settings). */
export interface ColumnSettingsValue {
  unit?: string;
  choices?: string[];
  table?: string;
}

/** What a cell write needs to know of its column: its widget's kind and the column's settings. */
export interface KindedColumn {
  kind: string;
  settings: ColumnSettingsValue | Record<string, unknown>;
}

/** The most a barcode or QR code holds: a version-40 QR code's bytes. */
export const BARCODE_MAX_BYTES = 2953;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Which settings each value kind takes (any other is refused). */
const SETTINGS_OF: Record<string, (keyof ColumnSettingsValue)[]> = {
  number: ['unit'],
  choice: ['choices'],
  multiple_choice: ['choices'],
  foreign_key: ['table'],
};

/** Refuses settings the widget's kind does not take, and checks those it needs (400 on `settings.<key>`). */
export async function checkColumnSettings(db: Db, orgSid: string, kind: string, settings: ColumnSettingsValue): Promise<void> {
  const allowed = SETTINGS_OF[kind] ?? [];
  const wrong: Record<string, string> = {};
  for (const key of Object.keys(settings) as (keyof ColumnSettingsValue)[]) {
    if (!allowed.includes(key)) {
      wrong[`settings.${key}`] = allowed.length
        ? `A ${kind.replace('_', ' ')} column takes only: ${allowed.join(', ')}.`
        : `A column of a ${kind} widget takes no settings.`;
    }
  }
  if ((kind === 'choice' || kind === 'multiple_choice')) {
    if (!settings.choices?.length) wrong['settings.choices'] = 'A choice column needs its choices: a list of at least one text.';
    else if (new Set(settings.choices).size !== settings.choices.length) wrong['settings.choices'] = 'Each choice may appear only once.';
  }
  if (kind === 'foreign_key') {
    if (!settings.table) wrong['settings.table'] = 'A foreign key column needs the sid of the table its values point to.';
    else if (!isSid(settings.table) || !(await query(db, sql`
      SELECT 1 FROM record_tables WHERE sid = ${settings.table} AND organization_sid = ${orgSid}`)).length) {
      wrong['settings.table'] = 'Select a table of this organization.';
    }
  }
  if (Object.keys(wrong).length) throw errors.fields(wrong);
}

/** Whether `text` is a calendar date YYYY-MM-DD. */
function isDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Why a rich-text document is not one (ProseMirror/TipTap JSON: {"type": "doc", "content": [nodes]}), or null. */
function richTextProblem(text: string): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return 'Rich text is a JSON document ({"type": "doc", "content": [...]}); this is not JSON.';
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc) || (doc as { type?: unknown }).type !== 'doc') {
    return 'Rich text is a JSON document whose "type" is "doc".';
  }
  // Every node: an object with a string `type`, its `content` (if any) a list of nodes, its `text` (if any) a string.
  const stack: unknown[] = [doc];
  for (let seen = 0; stack.length; seen += 1) {
    const node = stack.pop() as { type?: unknown; content?: unknown; text?: unknown } | null;
    if (!node || typeof node !== 'object' || Array.isArray(node) || typeof node.type !== 'string') {
      return 'Each node of the rich text is an object with a "type".';
    }
    if (node.text !== undefined && typeof node.text !== 'string') return 'A text node\'s "text" is a string.';
    if (node.content !== undefined) {
      if (!Array.isArray(node.content)) return 'A node\'s "content" is a list of nodes.';
      stack.push(...node.content);
    }
  }
  return null;
}

/**
 * Why `data` is not a value of the column's widget kind, or null when it is (or the kind
 * holds any text). "" (an empty cell) is a value of every kind.
 */
export async function cellDataProblem(db: Db, orgSid: string, column: KindedColumn, data: string): Promise<string | null> {
  if (data === '') return null;
  const settings = column.settings as ColumnSettingsValue;
  switch (column.kind) {
    case 'number':
      return NUMBER.test(data.trim()) && Number.isFinite(Number(data))
        ? null
        : `Enter a number (such as 12, -0.5 or 1.2e3)${settings.unit ? `, in ${settings.unit}` : ''}.`;
    case 'date':
      return isDate(data) ? null : 'Enter a date as YYYY-MM-DD (such as 2024-01-15).';
    case 'choice':
      return settings.choices?.includes(data) ? null : `Select one of the column's choices: ${(settings.choices ?? []).join(', ')}.`;
    case 'multiple_choice': {
      let picked: unknown;
      try {
        picked = JSON.parse(data);
      } catch {
        picked = undefined;
      }
      if (!Array.isArray(picked) || picked.some((p) => typeof p !== 'string')) {
        return 'Send the selected choices as a JSON list of texts (such as ["Red", "Blue"]).';
      }
      const unknown = (picked as string[]).filter((p) => !settings.choices?.includes(p));
      if (unknown.length) return `Not among the column's choices: ${unknown.join(', ')}.`;
      if (new Set(picked).size !== picked.length) return 'Each choice may be selected only once.';
      return null;
    }
    case 'foreign_key': {
      if (!isSid(data)) return `Enter the sid of a record of the table ${settings.table ?? ''}.`.replace(' .', '.');
      const found = await query(db, sql`
        SELECT 1 FROM record_rows WHERE sid = ${data} AND table_sid = ${settings.table ?? ''} AND organization_sid = ${orgSid}`);
      return found.length ? null : `No record ${data} in the table ${settings.table ?? ''} of this organization.`;
    }
    case 'barcode':
      if (Buffer.byteLength(data) > BARCODE_MAX_BYTES) return `A barcode or QR code holds at most ${BARCODE_MAX_BYTES} bytes.`;
      // eslint-disable-next-line no-control-regex
      return /[\u0000-\u001f\u007f]/.test(data) ? 'A barcode or QR code holds no control characters (tabs, line breaks …).' : null;
    case 'rich_text':
      return richTextProblem(data);
    default:
      return null;
  }
}

/** Refuses (400 on `field`) data that is not a value of the column's widget kind. */
export async function checkCellData(db: Db, orgSid: string, column: KindedColumn, data: string, field = 'data'): Promise<void> {
  const problem = await cellDataProblem(db, orgSid, column, data);
  if (problem) throw errors.field(field, problem);
}

/** The kind and settings of column `columnSid`: one look-up by its key. */
export async function kindOfColumn(db: Db, columnSid: string): Promise<KindedColumn> {
  const [found] = await query<KindedColumn>(db, sql`
    SELECT w.kind, c.settings FROM record_columns c JOIN widgets w ON w.sid = c.widget_sid WHERE c.sid = ${columnSid}`);
  return found ?? { kind: 'text', settings: {} };
}
