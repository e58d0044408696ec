import { randomBytes, createHash } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// Our sids are 16 characters; two built-in widgets carry Labii's own 19-character sids, which
// labii-sdk's upload() looks for (modules/files/files-table.ts).
const SID_RE = /^(?:[0-9A-Za-z]{16}|JMPS0a40x5eLQV16afk|KNQT0a40x5fMRW27bgl)$/;

// Random bytes for sids, drawn 4 KiB at a time: a write makes several sids, and one call
// into OpenSSL per sid showed in the cell PATCH's CPU profile (docs/performance.md).
// Sids name records, they are not secrets (newSecret draws its own bytes).
const SID_POOL_BYTES = 4096;
let sidPool = Buffer.alloc(0);
let sidPoolAt = 0;

/** A new record identifier: 16 random base-62 characters (about 95 bits). */
export function newSid(): string {
  if (sidPoolAt + 16 > sidPool.length) {
    sidPool = randomBytes(SID_POOL_BYTES);
    sidPoolAt = 0;
  }
  let out = '';
  for (let i = 0; i < 16; i += 1) out += ALPHABET[sidPool[sidPoolAt + i] % 62];
  sidPoolAt += 16;
  return out;
}

/** Whether a string has the form of a sid; anything else can be refused without a query. */
export function isSid(value: unknown): value is string {
  return typeof value === 'string' && SID_RE.test(value);
}

/** A secret for tokens, keys and tags: 32 random bytes, base64url. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a secret. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
