// The version hash, recomputed in TypeScript to verify what records_append_version()
// (migration 0002_version_chain.sql) wrote. Both follow docs/versions.md.
import { createHash } from 'node:crypto';

const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** Canonical JSON: keys sorted by code point, no insignificant whitespace, strings escaped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object).sort(byCodePoint).map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(',')}}`;
}

/** What a version's hash covers. */
export interface VersionContent {
  row: string;
  version: number;
  previousHash: string;
  data: unknown;
  updated_by: string;
  date_created: string;
}

/** SHA-256 (hex) of the canonical JSON of a version's content. */
export function versionHash(content: VersionContent): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}
