// Migration 0031 normalizes the addresses already stored (issue 21, point 4): a database
// at migration 0014 with accounts in it is migrated, and each account gets the key
// normalizeEmail gives (src/core/email.ts); of two accounts whose addresses share a key,
// the one that can sign in keeps it and the other is left without one (found by no
// address). On a database of its own: in-process PGlite, or a scratch PostgreSQL
// database this test creates and drops.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/env.ts';
import { withScratchDatabase } from '../helpers/scratch-db.ts';

const MIGRATIONS = path.join(PROJECT_ROOT, 'src', 'db', 'migrations');

/** A copy of the migrations folder holding only those before `tag` (its journal cut there too). */
function migrationsBefore(tag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-migrations-'));
  fs.cpSync(MIGRATIONS, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  assert.ok(at > 0, `migration ${tag} is in the journal`);
  journal.entries = journal.entries.slice(0, at);
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

describe('migration 0031: the stored addresses get their keys', () => {
  test('keys as normalizeEmail gives them; of two accounts that collide, the one that can sign in keeps the key', async () => {
    const before = migrationsBefore('0031_email_key_devices');
    try {
      await withScratchDatabase(async (migrate, run) => {
        await migrate(before);
        const insert = (sid: string, email: string, password: string | null, verified: boolean, joined: string) => run(
          `INSERT INTO users (sid, email, first_name, last_name, password_hash, email_verified_at, date_joined)
           VALUES ($1, $2, '', '', $3, CASE WHEN $4::boolean THEN now() END, $5::timestamptz)`, [sid, email, password, verified, joined]);
        await insert('u-mixedcase', 'Grace.Hopper@Example.TEST', 'hash', true, '2024-01-01');
        await run("INSERT INTO proven_addresses (user_sid, email) VALUES ('u-mixedcase', 'grace.hopper@example.test')");
        // Only by hand: the API never stored an address outside ASCII. "ｋate" (fullwidth k) differs from
        // "kate" for lower(), the old unique rule, but its key is the same.
        await insert('u-fullwidth', 'ｋate@example.test', null, false, '2023-01-01');
        await insert('u-kate', 'kate@example.test', 'hash', true, '2025-01-01');
        await insert('u-eszett', 'Straße@example.test', 'hash', true, '2024-06-01');

        await migrate(MIGRATIONS);

        const { rows } = await run('SELECT sid, email, email_key FROM users ORDER BY sid');
        assert.deepEqual(rows, [
          { sid: 'u-eszett', email: 'Straße@example.test', email_key: 'straße@example.test' },
          { sid: 'u-fullwidth', email: 'ｋate@example.test', email_key: null },
          { sid: 'u-kate', email: 'kate@example.test', email_key: 'kate@example.test' },
          { sid: 'u-mixedcase', email: 'Grace.Hopper@Example.TEST', email_key: 'grace.hopper@example.test' },
        ]);
        // (The service's key of "Straße" is "strasse": PostgreSQL's nearest for a hand-written address may
        // differ, and then no spelling finds that account, rather than a wrong one.)
        // The unique rule is on the key now.
        await assert.rejects(run("INSERT INTO users (sid, email, email_key) VALUES ('u-dup', 'KATE@example.test', 'kate@example.test')"), /users_email_key_key/);
        assert.deepEqual((await run("SELECT email FROM proven_addresses WHERE user_sid = 'u-mixedcase'")).rows, [{ email: 'grace.hopper@example.test' }]);
      });
    } finally {
      fs.rmSync(before, { recursive: true, force: true });
    }
  });
});
