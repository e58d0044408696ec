import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { storedVersionHash } from './chain.js';
import { versionBatch } from './repository.js';
import { createHash } from 'node:crypto';
import { ObjectMissing, type FileStore } from '../../storage/store.js';
import { rowFileSids } from '../files/repository.js';
import { filesOfCellData } from '../files/cells.js';

/** The files a version's cells list (by their sids among the row's attached files), first version first. */
function noteFiles(version: number, data: unknown, attached: Set<string>, carried: Map<string, { version: number; file: { sid: string; name: string; sha256: string } }>) {
  const cells = (data as { cells?: Record<string, unknown> } | null)?.cells;
  if (!cells || typeof cells !== 'object') return;
  for (const value of Object.values(cells)) {
    if (typeof value !== 'string' || !value.startsWith('[')) continue;
    for (const f of filesOfCellData(value)) {
      if (!attached.has(f.sid) || carried.has(f.sha256)) continue;
      carried.set(f.sha256, { version, file: { sid: f.sid, name: String(f.name), sha256: f.sha256 } });
    }
  }
}

/** The SHA-256 of a stored object's bytes as they are now (streamed); null when it is missing. */
async function hashStored(store: FileStore, sha256: string): Promise<string | null> {
  if (!/^[0-9a-f]{64}$/.test(sha256)) return 'not a SHA-256';
  try {
    const hash = createHash('sha256');
    for await (const chunk of await store.read(sha256)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } catch (err) {
    if (err instanceof ObjectMissing) return null;
    throw err;
  }
}

// At most `perBatch` versions a batch (what `maxBytes` holds at the row bound), and at most
// `maxBytes` of their data (two batches are in memory at once: the next is read while one is
// hashed). The byte cut, in the database, only weighs the batch's own candidates, so
// verifying n versions weighs each once (rows written before the bound may be larger).
const MAX_PROBLEMS = 100;

/**
 * Verifies a row's whole chain from the stored data: versions numbered 1..n without a
 * gap, each hash matching its content, each previousHash equal to the hash before it,
 * and the row's head (its latest version and hash) matching the last version.
 */
export async function verifyChain(db: Db, row: { sid: string; name: string }, maxBytes: number, perBatch: number, store?: FileStore) {
  const BATCH = Math.max(1, perBatch);
  const problems: { version: number; problem: string; file?: { sid: string; name: string; sha256: string } }[] = [];
  const note = (version: number, problem: string, file?: { sid: string; name: string; sha256: string }) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ version, problem, ...(file ? { file } : {}) });
  };
  let firstInvalid: number | null = null;
  const fail = (version: number, problem: string, file?: { sid: string; name: string; sha256: string }) => {
    firstInvalid = firstInvalid === null ? version : Math.min(firstInvalid, version);
    note(version, problem, file);
  };
  // The files the versions' cells list (the row's attached files), by the hash their versions carry.
  const attached = store ? await rowFileSids(db, row.sid) : new Set<string>();
  const carried = new Map<string, { version: number; file: { sid: string; name: string; sha256: string } }>();
  let expected = 1;
  let previousHash = '';
  let checked = 0;
  // The next batch is read while this one is hashed: the database and the hashing overlap.
  let pending = versionBatch(db, row.sid, 0, BATCH, maxBytes);
  for (;;) {
    const { versions: batch, more } = await pending;
    if (more) pending = versionBatch(db, row.sid, batch[batch.length - 1].version, BATCH, maxBytes);
    for (const v of batch) {
      // Each version's hash is a few milliseconds of a ~1 MB row: let other requests run between them.
      if (checked) await new Promise((resolve) => setImmediate(resolve));
      checked += 1;
      if (v.version !== expected) fail(expected, `version ${expected} is missing (found ${v.version} next)`);
      if (v.previousHash !== previousHash) fail(v.version, 'previousHash does not match the hash of the version before');
      const recomputed = storedVersionHash(v);
      if (recomputed !== v.hash) fail(v.version, 'the hash does not match the stored content');
      if (attached.size) noteFiles(v.version, v.data, attached, carried);
      previousHash = v.hash;
      expected = v.version + 1;
    }
    if (!more) break;
  }
  // Each file's bytes, once per hash: the stored object must still hash to what its first version carries.
  for (const [sha256, { version, file }] of store ? carried : []) {
    const actual = await hashStored(store!, sha256);
    if (actual === null) fail(version, `the file "${file.name}" (${file.sid}) is missing from storage`, file);
    else if (actual !== sha256) fail(version, `the file "${file.name}" (${file.sid}) no longer matches its SHA-256: its stored bytes hash to ${actual}`, file);
  }
  const [head] = await query<{ version: number; last_hash: string; now: string }>(db, sql`
    SELECT version, last_hash, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS now FROM record_rows WHERE sid = ${row.sid}`);
  if (head.version !== expected - 1) fail(Math.min(head.version, expected), `the row's head is version ${head.version} but the chain ends at ${expected - 1}`);
  else if (head.last_hash !== previousHash) fail(head.version, "the row's head hash differs from its last version's hash");
  return {
    row: { sid: row.sid, name: row.name },
    versions: checked,
    head_version: head.version,
    is_valid: firstInvalid === null,
    first_invalid_version: firstInvalid,
    problems,
    date_verified: head.now,
  };
}
