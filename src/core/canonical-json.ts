/**
 * Orders strings by Unicode code point (as UTF-8 bytes and PostgreSQL's COLLATE "C" do),
 * without allocating: UTF-16 units from U+D800 up are shifted so that surrogates (astral
 * characters) sort after U+E000–U+FFFF, which is code point order.
 */
function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800) x += x >= 0xe000 ? -0x800 : 0x2000;
      if (y >= 0xd800) y += y >= 0xe000 ? -0x800 : 0x2000;
      return x - y;
    }
  }
  return a.length - b.length;
}

/** Canonical JSON: keys sorted by code point, no insignificant whitespace, strings escaped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object).filter((k) => object[k] !== undefined).sort(byCodePoint)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(',')}}`;
}
