// Secrets are not kept (issue 12, points 4 and 9): an API key's creation is never stored
// for an Idempotency-Key replay (a retry answers 409 naming the key, never the key), and
// the retention job deletes sent mail, idempotency entries, expired sessions, reset and
// proof tags and login failures once their documented time is over (docs/configuration.md, "Retention"), and nothing younger.
// A server of its own runs the job every second (RETENTION_CHECK_SECONDS=1); on
// PostgreSQL two processes of it at once, on the run's database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DB_KIND } from '../helpers/env.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { http, Api } from '../helpers/http.ts';
import { readMail } from '../helpers/mail.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { behindTheApi, type Runner } from '../helpers/behind.ts';
import { proveEmail } from '../helpers/factories.ts';

const ENV = { RETENTION_CHECK_SECONDS: '1' };
const sha256 = (secret: string) => createHash('sha256').update(secret).digest('hex');

let server: RunningServer | null;
const email = `ret-${Date.now()}-${process.pid}@records.test`;
const password = `Retained-${Date.now()}-pw!`;
let token: string;
let userSid: string;
/** The user's first session, at the server as it is now (on PGlite it restarts on a new port). */
const me = () => new Api(token, 'token', server!.baseUrl);

let dataDir = '';

before(async () => {
  // On PGlite a folder of the test's own, kept across the restarts behindTheApi makes.
  if (DB_KIND === 'pglite') dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-retention-'));
  server = await startServer({ env: ENV, workers: DB_KIND === 'postgres' ? 2 : 1, ...(dataDir ? { databaseUrl: null, dataDir } : {}) });
  userSid = expectStatus(await http('POST', '/accounts/signup/', { baseUrl: server.baseUrl, body: { email, password } }), 201).json.sid;
  await proveEmail(email, server); // the mailed link (issue 11): an unproven account may only prove its email
  token = expectStatus(await http('POST', '/accounts/auth/', { baseUrl: server.baseUrl, body: { username: email, password } }), 200).json.token;
});

after(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** SQL on the server's database (on PGlite the server is stopped meanwhile and started again). */
async function behind(change: (run: Runner) => Promise<void>) {
  server = await behindTheApi(server, change, ENV);
}

describe('an API key\'s creation is never kept for a replay', () => {
  test('a retry with the same Idempotency-Key creates no second key, answers 409 naming it, and the key is stored nowhere in clear', async () => {
    const api = me().with({ 'idempotency-key': `key-${Date.now()}` });
    const url = `/accounts/apikey/list/user/${userSid}/detail/`;
    const first = expectStatus(await api.post(url, { name: 'nightly' }), 201, 'created').json;
    assert.equal(typeof first.key, 'string');
    const retry = await api.post(url, { name: 'nightly' });
    expectStatus(retry, 409, 'the retry');
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(retry.json, {
      detail: `The API key ${first.sid} was already created by a request with this Idempotency-Key; its key was shown only in that answer `
        + `and is not kept. If that answer was lost, delete the key (DELETE /accounts/apikey/detail/${first.sid}/) and create a new one.`,
    });
    assert.ok(!retry.text.includes(first.key), 'the replay does not reveal the key');
    const keys = expectStatus(await me().get(url), 200).json;
    assert.equal(keys.results.filter((k: { name: string }) => k.name === 'nightly').length, 1, 'one key, not two');
    // After the key is deleted the replay still reveals nothing.
    expectStatus(await me().delete(`/accounts/apikey/detail/${first.sid}/`), 200);
    const late = await api.post(url, { name: 'nightly' });
    expectStatus(late, 409, 'a retry after the deletion');
    assert.ok(!late.text.includes(first.key));
    await behind(async (run) => {
      const { rows } = await run('SELECT count(*)::int AS n FROM idempotency_keys WHERE position($1 in coalesce(response_body, \'\')) > 0', [first.key]);
      assert.equal(rows[0].n, 0, 'no idempotency entry holds the key');
    });
  });
});

describe('the retention job', () => {
  test('deletes sent mail, idempotency entries, expired sessions, reset and proof tags and sign-in counters past their time, and nothing younger', async () => {
    const baseUrl = server!.baseUrl;
    // A sent mail (a reset link), an idempotency entry, a second session, a login failure.
    expectStatus(await http('POST', '/accounts/forgetpassword/', { baseUrl, body: { email } }), 200);
    await readMail(email, { dataDir: server!.dataDir, subject: /^Reset your Records Service password$/ });
    await sleep(500); // the worker marks it sent right after writing it
    const idemKey = `old-${Date.now()}`;
    expectStatus(await me().with({ 'idempotency-key': idemKey }).post(`/organizations/organization/list/user/${userSid}/detail/`, { name: 'Retained' }), 201);
    const freshKey = `fresh-${Date.now()}`;
    expectStatus(await me().with({ 'idempotency-key': freshKey }).post(`/organizations/organization/list/user/${userSid}/detail/`, { name: 'Fresh' }), 201);
    const old = expectStatus(await http('POST', '/accounts/auth/', { baseUrl, body: { username: email, password } }), 200, 'a second session').json.token as string;
    expectStatus(await http('POST', '/accounts/auth/', { baseUrl, body: { username: email, password: 'wrong password' } }), 406, 'a failed sign-in');
    // Backdated past their times: sent 25 h ago, the entry 25 h old, the session idle 31 min,
    // the reset and proof tags expired, the failure 16 min old; beside them a reset tag still valid.
    let mailId = 0;
    const freshReset = sha256(`fresh-reset-${Date.now()}`);
    await behind(async (run) => {
      const sent = await run(`UPDATE mail_outbox SET date_sent = now() - interval '25 hours' WHERE to_address = $1 AND status = 'sent' AND subject = 'Reset your Records Service password' RETURNING id`, [email]);
      assert.equal(sent.rows.length, 1, 'the reset mail was sent');
      mailId = sent.rows[0].id;
      assert.equal((await run(`UPDATE idempotency_keys SET date_created = now() - interval '25 hours' WHERE user_sid = $1 AND key = $2 RETURNING 1`, [userSid, idemKey])).rows.length, 1);
      assert.equal((await run(`UPDATE credentials SET last_used_at = now() - interval '31 minutes' WHERE key_hash = $1 RETURNING 1`, [sha256(old)])).rows.length, 1);
      assert.equal((await run(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE user_sid = $1 RETURNING 1`, [userSid])).rows.length, 1, 'the reset tag');
      await run(`INSERT INTO password_resets (tag_hash, user_sid, expires_at) VALUES ($1, $2, now() + interval '1 hour')`, [freshReset, userSid]);
      assert.equal((await run(`UPDATE email_proofs SET expires_at = now() - interval '1 second' WHERE user_sid = $1 RETURNING 1`, [userSid])).rows.length, 1, 'the signup\'s proof tag');
      assert.equal((await run(`UPDATE rate_limits SET window_start = now() - interval '16 minutes', expires_at = now() - interval '1 minute' WHERE key = $1 RETURNING 1`, [`login:account:${email.toLowerCase()}`])).rows.length, 1);
    });
    // The job runs every second (on PostgreSQL in two processes): give it a few runs.
    await sleep(4_000);
    await behind(async (run) => {
      const count = async (text: string, params: unknown[]) => (await run(text, params)).rows[0].n;
      assert.equal(await count('SELECT count(*)::int AS n FROM mail_outbox WHERE id = $1', [mailId]), 0, 'the sent mail is deleted');
      assert.equal(await count('SELECT count(*)::int AS n FROM idempotency_keys WHERE user_sid = $1 AND key = $2', [userSid, idemKey]), 0, 'the old entry is deleted');
      assert.equal(await count('SELECT count(*)::int AS n FROM idempotency_keys WHERE user_sid = $1 AND key = $2', [userSid, freshKey]), 1, 'a fresh entry stays');
      assert.equal(await count('SELECT count(*)::int AS n FROM credentials WHERE key_hash = $1', [sha256(old)]), 0, 'the expired session is deleted');
      assert.equal(await count('SELECT count(*)::int AS n FROM credentials WHERE key_hash = $1', [sha256(token)]), 1, 'the live session stays');
      assert.equal(await count('SELECT count(*)::int AS n FROM rate_limits WHERE key = $1', [`login:account:${email.toLowerCase()}`]), 0, 'the old failure count is deleted');
      assert.deepEqual((await run('SELECT tag_hash FROM password_resets WHERE user_sid = $1', [userSid])).rows, [{ tag_hash: freshReset }], 'the expired reset tag is deleted, the valid one stays');
      assert.equal(await count('SELECT count(*)::int AS n FROM email_proofs WHERE user_sid = $1', [userSid]), 0, 'the expired proof tag is deleted');
    });
    // The live session still works, at the server as it is now.
    expectStatus(await me().get('/accounts/checktoken/'), 200, 'the live session still works');
  });
});
