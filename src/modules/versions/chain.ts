// The version hash, recomputed in TypeScript to verify what records_append_version()
// (migration 0002_version_chain.sql) wrote. Both follow docs/versions.md.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';

export { canonicalJson };

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
