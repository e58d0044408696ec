// The version hash's format (docs/versions.md), the one TypeScript definition of it: what
// the hash covers and how its text is written. Every check in TypeScript hashes through
// here (is_valid in version lists, the verify endpoint, `cli verify-archive`).
// records_append_version() writes the same in SQL (src/db/functions/records_version_text.sql,
// with records_canonical_json.sql); test/modules/db-functions.test.ts proves the two agree.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';

export { canonicalJson };

/** What a version's hash covers, by the names the hashed JSON gives them. */
export interface VersionContent {
  row: string;
  version: number;
  previousHash: string;
  data: unknown;
  updated_by: string;
  date_created: string;
}

/** A version as the versions table stores it (the row and the author by sid). */
export interface StoredVersionContent {
  row_sid: string;
  version: number;
  previousHash: string;
  data: unknown;
  updated_by_sid: string;
  date_created: string;
}

/** The text a version's hash is computed over: the canonical JSON of exactly its six fields (nothing else a caller holds). */
export function versionText(content: VersionContent): string {
  const { row, version, previousHash, data, updated_by, date_created } = content;
  return canonicalJson({ row, version, previousHash, data, updated_by, date_created });
}

/** SHA-256 (hex) of a version's text. */
export function versionHash(content: VersionContent): string {
  return createHash('sha256').update(versionText(content)).digest('hex');
}

/** The hash of a version read from the versions table. */
export function storedVersionHash(v: StoredVersionContent): string {
  return versionHash({ row: v.row_sid, version: v.version, previousHash: v.previousHash, data: v.data, updated_by: v.updated_by_sid, date_created: v.date_created });
}
