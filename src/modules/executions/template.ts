// Templating of a step's settings: {{row.name}}, {{row.sid}}, {{row.description}},
// {{row.cells.<column name>}}, {{variables.a.b}}, {{data.a.b}} in any string. It looks
// values up, nothing more: no expressions, no calls, and only own properties of the
// JSON objects given (never __proto__, constructor or prototype).

/** What the references of a step's settings may name. */
export interface TemplateContext {
  row: { sid: string; name: string; description: string; cells: Map<string, string> };
  variables: Record<string, unknown>;
  data: Record<string, unknown>;
}

const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const ROW_FIELDS = new Set(['sid', 'name', 'description']);
const MISSING = Symbol('missing');

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Walks `path` through own properties of JSON objects and arrays; MISSING when any part is absent. */
function walk(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) {
    if (FORBIDDEN.has(key)) return MISSING;
    if (Array.isArray(value) && /^\d+$/.test(key) && Number(key) < value.length) value = value[Number(key)];
    else if (isPlainObject(value) && Object.hasOwn(value, key)) value = value[key];
    else return MISSING;
  }
  return value;
}

/** The value a reference names, or MISSING. */
function lookUp(reference: string, context: TemplateContext): unknown {
  if (reference.startsWith('row.cells.')) {
    const column = reference.slice('row.cells.'.length);
    return context.row.cells.has(column) ? context.row.cells.get(column) : MISSING;
  }
  const [root, ...path] = reference.split('.');
  if (root === 'row') return path.length === 1 && ROW_FIELDS.has(path[0]) ? context.row[path[0] as 'sid' | 'name' | 'description'] : MISSING;
  if (root === 'variables') return path.length ? walk(context.variables, path) : MISSING;
  if (root === 'data') return path.length ? walk(context.data, path) : MISSING;
  return MISSING;
}

/** A looked-up value as text: strings as they are, null as empty, other JSON as JSON. */
function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * `value` with every reference in its strings replaced (object keys are left alone).
 * A string that is exactly one reference takes the referenced value as it is (a list
 * of sids, a number …); otherwise values are put in as text. A reference to nothing
 * renders as empty text and is added to `unknown`.
 */
export function render(value: unknown, context: TemplateContext, unknown: Set<string>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) {
      const found = lookUp(whole[1], context);
      if (found === MISSING) {
        unknown.add(whole[1]);
        return '';
      }
      return found ?? '';
    }
    return value.replace(REFERENCE, (_match, reference: string) => {
      const found = lookUp(reference, context);
      if (found === MISSING) {
        unknown.add(reference);
        return '';
      }
      return asText(found);
    });
  }
  if (Array.isArray(value)) return value.map((item) => render(item, context, unknown));
  if (isPlainObject(value)) {
    // fromEntries defines own properties: a "__proto__" key stays a plain key.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, render(item, context, unknown)]));
  }
  return value;
}
