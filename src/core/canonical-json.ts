const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** Canonical JSON: keys sorted by code point, no insignificant whitespace, strings escaped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object).filter((k) => object[k] !== undefined).sort(byCodePoint)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(',')}}`;
}
