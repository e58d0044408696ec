// What each line of an import would do (issue 26): the header mapped to the row's fields and
// the table's columns, then each line checked against the row it names — every refusal a
// problem with its line and column, so a dry run reports them all and a run writes nothing
// when there is one. The same rules as a cell edit: the row's state, the cell's bound, the
// row's size bound; the price is what the written cells' widgets cost.
import type { ExistingRow } from './repository.js';
import type { CellColumn } from '../cells/write.js';
import { requiredMessage } from '../rows/column-rules.js';

export interface Problem {
  line: number | null;
  column: string | null;
  problem: string;
}

/** A column as an import writes it: its price in cents, and its rules on a new row (`required`, `defaultValue`: not an archived column's). */
export type ImportColumn = CellColumn & { cents: number; required: boolean; defaultValue: string };
type Target = { field: 'sid' | 'name' | 'description' } | { column: ImportColumn };

export interface Mapping {
  header: string[];
  /** Each header field's target; null: left out. */
  targets: (Target | null)[];
  /** How lines name existing rows: by sid, by a column's data, or not at all (every line a new row). */
  key: { kind: 'sid'; at: number } | { kind: 'column'; at: number; column: ImportColumn } | null;
  /** The columns the header leaves out that have a rule on a new row: a default value, or required. */
  unmapped: ImportColumn[];
}

const FIELDS = ['sid', 'name', 'description'] as const;
export const LIMITS = { name: 255, description: 10_000, data: 100_000 };

/**
 * The header's mapping: each field to `mapping[field]` when given ('' leaves it out; a
 * column's name or sid; sid, name or description), else to the row field or the first
 * column of that name. `key`: a column name, 'sid', or undefined (sid when mapped).
 */
export function mapHeader(header: string[], columns: ImportColumn[], mapping: Record<string, string>, key: string | undefined, problems: Problem[]): Mapping {
  const byName = new Map<string, ImportColumn>();
  for (const c of columns) if (!byName.has(c.name)) byName.set(c.name, c);
  const bySid = new Map(columns.map((c) => [c.sid, c]));
  const used = new Map<string, string>();
  const targets = header.map((name): Target | null => {
    const wanted = Object.hasOwn(mapping, name) ? mapping[name] : name;
    if (wanted === '') return null;
    // sid, name and description are the row's own fields (a column of such a name is mapped by its sid).
    const column = bySid.get(wanted) ?? byName.get(wanted);
    const target: Target | undefined = (FIELDS as readonly string[]).includes(wanted) ? { field: wanted as (typeof FIELDS)[number] }
      : column ? { column } : undefined;
    if (!target) {
      problems.push({ line: 1, column: name, problem: `No column of the table is named "${wanted}": map it to a column, or to "" to leave it out.` });
      return null;
    }
    if ('column' in target && target.column.kind === 'file') {
      problems.push({ line: 1, column: name, problem: `"${target.column.name}" is a file column: its files are uploaded to the cell (POST /files/file/list/row/{sid}/detail/?column=…), not imported; map "${name}" to "" to leave it out.` });
      return null;
    }
    const id = 'field' in target ? target.field : target.column.sid;
    if (used.has(id)) {
      problems.push({ line: 1, column: name, problem: `"${used.get(id)}" is mapped to the same ${'field' in target ? 'field' : 'column'} already.` });
      return null;
    }
    used.set(id, name);
    return target;
  });
  let keyed: Mapping['key'] = null;
  const sidAt = targets.findIndex((t) => t && 'field' in t && t.field === 'sid');
  if (key === undefined || key === 'sid') {
    if (sidAt >= 0) keyed = { kind: 'sid', at: sidAt };
    else if (key === 'sid') problems.push({ line: 1, column: null, problem: 'The key is sid, but no field of the header is mapped to sid.' });
  } else {
    const at = targets.findIndex((t) => t && 'column' in t && (t.column.name === key || t.column.sid === key));
    if (at < 0) problems.push({ line: 1, column: null, problem: `The key "${key}" is no column the header is mapped to.` });
    else keyed = { kind: 'column', at, column: (targets[at] as { column: ImportColumn }).column };
  }
  const mapped = new Set(targets.map((t) => (t && 'column' in t ? t.column.sid : null)));
  const unmapped = columns.filter((c) => !mapped.has(c.sid) && c.kind !== 'file' && (c.required || c.defaultValue !== ''));
  return { header, targets, key: keyed, unmapped };
}

/** What one line does. */
export type Plan =
  | { kind: 'create'; line: number; name: string; description: string; cells: { column: ImportColumn; data: string }[]; cents: number }
  | { kind: 'update'; line: number; row: ExistingRow; name?: string; description?: string; cells: { column: ImportColumn; data: string; cellSid?: string }[]; cents: number }
  | { kind: 'unchanged'; line: number; row: ExistingRow }
  | { kind: 'refused'; line: number };

/** The line's key ('' when it names no row). */
export function keyOf(mapping: Mapping, fields: string[]): string {
  return mapping.key ? (fields[mapping.key.at] ?? '') : '';
}

const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text));

/**
 * Checks one line against the row it names (`existing`; undefined: none) and says what it
 * does; its problems go to `problems`. `seen`: the keys of the lines before, with their line.
 */
export function planLine(
  mapping: Mapping, line: number, fields: string[], existing: ExistingRow | undefined, seen: Map<string, number>, rowMaxBytes: number, problems: Problem[],
): Plan {
  const before = problems.length;
  const refuse = (column: string | null, problem: string) => problems.push({ line, column, problem });
  if (fields.length > mapping.header.length) {
    refuse(null, `The line has ${fields.length} fields; the header has ${mapping.header.length}.`);
    return { kind: 'refused', line };
  }
  let name: string | undefined;
  let description: string | undefined;
  const cells: { column: ImportColumn; data: string; header: string }[] = [];
  mapping.targets.forEach((target, i) => {
    if (!target || i >= fields.length) return;
    const value = fields[i];
    if ('field' in target) {
      if (target.field === 'name') name = value;
      if (target.field === 'description') description = value;
      return;
    }
    cells.push({ column: target.column, data: value, header: mapping.header[i] });
  });
  const key = keyOf(mapping, fields);
  const keyHeader = mapping.key ? mapping.header[mapping.key.at] : null;
  if (key) {
    const first = seen.get(key);
    if (first !== undefined) refuse(keyHeader, `Line ${first} names the same row (${key}): a row is imported once.`);
    else seen.set(key, line);
  }
  if (mapping.key?.kind === 'sid' && key && !existing) refuse(keyHeader, `No row with sid ${key} in this table and project.`);
  if (existing?.is_archived) refuse(keyHeader, `The row (${existing.sid}) is archived; unarchive it before importing into it.`);
  if (name !== undefined && name.length > LIMITS.name) refuse(headerOf(mapping, 'name'), `The name has ${name.length} characters; at most ${LIMITS.name}.`);
  if (description !== undefined && description.length > LIMITS.description) {
    refuse(headerOf(mapping, 'description'), `The description has ${description.length} characters; at most ${LIMITS.description}.`);
  }
  for (const c of cells) {
    if (c.data.length > LIMITS.data) refuse(c.header, `The value has ${c.data.length} characters; a cell holds at most ${LIMITS.data.toLocaleString('en')}.`);
  }
  if (!existing) {
    if (!name) refuse(headerOf(mapping, 'name'), 'A new row needs a name.');
    // A new row's column rules, as its creation has them (rows/column-rules.ts): a column the
    // header leaves out gets its default value; a required column must end up with a value.
    for (const column of mapping.unmapped) if (column.defaultValue !== '') cells.push({ column, data: column.defaultValue, header: column.name });
    for (const c of cells) if (c.column.required && c.data === '') refuse(c.header, requiredMessage(c.column.name));
    for (const column of mapping.unmapped) if (column.required && column.defaultValue === '') refuse(column.name, requiredMessage(column.name));
    mapping.targets.forEach((t, i) => { // a line shorter than the header leaves its last columns without a value
      if (t && 'column' in t && i >= fields.length && t.column.required) refuse(mapping.header[i], requiredMessage(t.column.name));
    });
    const written = cells.filter((c) => c.data !== '');
    const bytes = jsonBytes(name ?? '') + jsonBytes(description ?? '') + written.reduce((n, c) => n + jsonBytes(c.data), 0);
    if (bytes > rowMaxBytes) refuse(null, `The row would hold ${bytes} bytes; a row holds at most ${rowMaxBytes} bytes (ROW_MAX_BYTES).`);
    if (problems.length > before) return { kind: 'refused', line };
    return {
      kind: 'create', line, name: name!, description: description ?? '',
      cells: written.map(({ column, data }) => ({ column, data })), cents: written.reduce((n, c) => n + c.column.cents, 0),
    };
  }
  const changedName = name !== undefined && name !== existing.name ? name : undefined;
  const changedDescription = description !== undefined && description !== existing.description ? description : undefined;
  if (changedName !== undefined && !changedName) refuse(headerOf(mapping, 'name'), 'A row needs a name.');
  const changed = cells.filter((c) => (existing.cells[c.column.sid]?.data ?? '') !== c.data);
  for (const c of changed) if (c.column.required && c.data === '') refuse(c.header, requiredMessage(c.column.name));
  if (existing.is_locked && !existing.is_archived) {
    if (changedName !== undefined || changedDescription !== undefined) {
      refuse(headerOf(mapping, changedName !== undefined ? 'name' : 'description'), `The row (${existing.sid}) is locked; unlock it before changing its name or description.`);
    }
    for (const c of changed) {
      if (!c.column.addable) refuse(c.header, `The row (${existing.sid}) is locked; only a widget that may be added at the read-only stage can change.`);
    }
  }
  const after = { ...Object.fromEntries(Object.entries(existing.cells).map(([k, v]) => [k, v.data])) };
  for (const c of changed) after[c.column.sid] = c.data;
  const bytes = jsonBytes(changedName ?? existing.name) + jsonBytes(changedDescription ?? existing.description)
    + Object.values(after).reduce((n, d) => n + jsonBytes(d), 0);
  if (bytes > rowMaxBytes) refuse(null, `The row would hold ${bytes} bytes; a row holds at most ${rowMaxBytes} bytes (ROW_MAX_BYTES).`);
  if (problems.length > before) return { kind: 'refused', line };
  if (!changed.length && changedName === undefined && changedDescription === undefined) return { kind: 'unchanged', line, row: existing };
  return {
    kind: 'update', line, row: existing, name: changedName, description: changedDescription,
    cells: changed.map(({ column, data }) => ({ column, data, cellSid: existing.cells[column.sid]?.sid })),
    cents: changed.reduce((n, c) => n + c.column.cents, 0),
  };
}

function headerOf(mapping: Mapping, field: 'name' | 'description'): string {
  const at = mapping.targets.findIndex((t) => t && 'field' in t && t.field === field);
  return at >= 0 ? mapping.header[at] : field;
}
