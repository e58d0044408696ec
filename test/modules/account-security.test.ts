// Accounts, behind the API (issue 7, Accounts; design: Identity and authentication):
// - idle session tokens: a session token unused for TOKEN_IDLE_MINUTES (here 5) stops
//   working, one used within the window keeps working and its use moves the window, and
//   API keys do not expire when idle (docs/decisions.md);
// - login attempts are limited per address too (per account: accounts.test.ts): requests
//   from 127.0.0.2 are another client address;
// - passwords are stored as argon2id hashes;
// - no secret (password, token, API key, reset tag) reaches a log line, even at
//   LOG_LEVEL=debug, and every answer carries the security headers.
//
// Time is moved behind the API: the credentials' last use is set back in the database.
// PostgreSQL: through `pg`, on the run's database, with a server of this file's own
// (TOKEN_IDLE_MINUTES=5). PGlite (in-process in the server): this file's server is
// stopped, DATA_DIR/pgdata changed with PGlite, and the server started again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DB_KIND } from '../helpers/env.ts';
import { MESSAGES, expectDetail, expectFieldErrors, expectInvalidToken, expectStatus } from '../helpers/assertions.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { behindTheApi, type Runner } from '../helpers/behind.ts';
import { Api, anonymous } from '../helpers/http.ts';
import { PATHS, PROOF_SUBJECT, proveEmail, strongPassword, uniqueEmail } from '../helpers/factories.ts';
import { readMail } from '../helpers/mail.ts';

const IDLE_MINUTES = 5;
const env = { TOKEN_IDLE_MINUTES: String(IDLE_MINUTES), SIGNUP_ENABLED: 'true', LOG_LEVEL: 'debug' };
let server: RunningServer;
let dataDir = '';

before(async () => {
  if (DB_KIND === 'pglite') dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-sessions-'));
  server = await startServer(DB_KIND === 'pglite' ? { databaseUrl: null, dataDir, env } : { env });
});

after(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `change` with SQL access to the database behind this file's server (restarting it on PGlite). */
async function changeBehindTheApi(change: (run: Runner) => Promise<void>): Promise<void> {
  server = (await behindTheApi(server, change, env))!;
}

/** A fresh account on this file's server, and `sessions` session tokens of it. */
async function account(sessions: number): Promise<{ sid: string; tokens: string[] }> {
  const email = uniqueEmail('idle');
  const password = strongPassword();
  const created = await anonymous.at(server.baseUrl).post(PATHS.signup, { email, password });
  expectStatus(created, 201, 'signup');
  await proveEmail(email, server);
  const tokens: string[] = [];
  for (let i = 0; i < sessions; i += 1) {
    const res = await anonymous.at(server.baseUrl).post(PATHS.auth, { username: email, password });
    expectStatus(res, 200, 'login');
    tokens.push(res.json.token);
  }
  return { sid: created.json.sid, tokens };
}

describe('idle session tokens', () => {
  test('a session unused for TOKEN_IDLE_MINUTES is ended; one used in time keeps working; API keys do not idle out', async () => {
    const { sid, tokens: [idle, recent] } = await account(2);
    const keyRes = await new Api(idle, 'token', server.baseUrl).post(`/accounts/apikey/list/user/${sid}/detail/`, { name: 'idle script' });
    expectStatus(keyRes, 201, 'an API key');
    const key = keyRes.json.key as string;

    await changeBehindTheApi(async (run) => {
      // The idle session and the key were last used just past the window; the other session just inside it.
      const past = `${IDLE_MINUTES * 60 + 5} seconds`;
      const inside = `${IDLE_MINUTES * 60 - 30} seconds`;
      const moved = await run(
        `UPDATE credentials SET last_used_at = now() - (CASE WHEN kind = 'session' AND key_hash = $2 THEN $3 ELSE $4 END)::interval
          WHERE user_sid = $1 RETURNING kind`,
        [sid, await hashOf(recent), inside, past]);
      assert.equal(moved.rows.length, 3, 'two sessions and one key moved back');
    });

    const at = (token: string, scheme: 'token' | 'Bearer' = 'token') => new Api(token, scheme, server.baseUrl);
    expectInvalidToken(await at(idle).get(PATHS.checktoken), 'the idle session is ended');
    expectInvalidToken(await at(idle).via('Bearer').get(PATHS.checktoken), 'in every header form');
    expectStatus(await at(recent).get(PATHS.checktoken), 200, 'the session used inside the window still works');
    expectStatus(await at(key, 'Bearer').get(PATHS.checktoken), 200, 'an API key does not expire when idle');

    // Using the recent session moved its window: it is no longer near the edge.
    await changeBehindTheApi(async (run) => {
      const { rows } = await run(
        `SELECT kind, last_used_at > now() - interval '2 minutes' AS fresh FROM credentials WHERE user_sid = $1 ORDER BY kind, 2`, [sid]);
      assert.deepEqual(rows.map((r) => [r.kind, r.fresh]), [['apikey', true], ['session', false], ['session', true]],
        'the used session and key are recorded as used now; the ended session stays stale');
    });
  });
});

describe('proof links expire', () => {
  test('a proof link is valid 24 hours: once expired it is 400 and proves nothing', async () => {
    const email = uniqueEmail('expiring');
    const password = strongPassword();
    expectStatus(await anonymous.at(server.baseUrl).post(PATHS.signup, { email, password }), 201, 'signup');
    const proof = await readMail(email, { dataDir: server.dataDir, subject: PROOF_SUBJECT });
    await changeBehindTheApi(async (run) => {
      const { rows } = await run(
        `SELECT extract(epoch FROM expires_at - date_created)::int AS seconds FROM email_proofs
          WHERE user_sid = (SELECT sid FROM users WHERE lower(email) = lower($1))`, [email]);
      assert.deepEqual(rows.map((r) => r.seconds), [24 * 3600], 'one tag, valid 24 hours');
      await run(`UPDATE email_proofs SET expires_at = now() - interval '1 second'
                  WHERE user_sid = (SELECT sid FROM users WHERE lower(email) = lower($1))`, [email]);
    });
    const api = anonymous.at(server.baseUrl);
    expectFieldErrors(await api.post(PATHS.verifyemail, undefined, { query: { tag: proof.verifyTag } }),
      { tag: ['This link is invalid, used or expired; ask for a new one.'] });
    const auth = await api.post(PATHS.auth, { username: email, password });
    expectStatus(auth, 200);
    expectDetail(await new Api(auth.json.token, 'token', server.baseUrl).get(`/organizations/organization/list/user/${auth.json.user.sid}/name/`),
      403, MESSAGES.emailNotVerified, 'still unproven');
  });
});

/** POST JSON from a chosen local address (127.0.0.0/8 is all loopback on Linux): another client address. */
function postFrom(localAddress: string, target: string, body: unknown): Promise<{ status: number; retryAfter: string | undefined; json: any }> {
  const url = new URL(target, server.baseUrl);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => {
        const header = res.headers['retry-after'];
        resolve({ status: res.statusCode!, retryAfter: Array.isArray(header) ? header[0] : header, json: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describe('login rate limit per address', () => {
  test('50 failures from one address within 15 minutes: 429 with Retry-After for any account from it; other addresses unaffected', async () => {
    const email = uniqueEmail('address');
    const password = strongPassword();
    expectStatus(await anonymous.at(server.baseUrl).post(PATHS.signup, { email, password }), 201, 'signup');
    const from = '127.0.0.2';
    // Failures spread over many accounts, so no account reaches its own limit of 10.
    for (let i = 0; i < 50; i += 1) {
      const res = await postFrom(from, PATHS.auth, { username: uniqueEmail(`nobody${i}`), password: 'not-the-password' });
      assert.equal(res.status, 406, `failure ${i + 1} is an ordinary refusal`);
    }
    const blocked = await postFrom(from, PATHS.auth, { username: email, password });
    assert.equal(blocked.status, 429, 'the 51st attempt from the address is refused, even with the right password');
    assert.ok(blocked.retryAfter && Number(blocked.retryAfter) > 0 && Number(blocked.retryAfter) <= 15 * 60, `Retry-After: ${blocked.retryAfter}`);
    assert.equal(typeof blocked.json?.detail, 'string', 'a detail says why');
    const elsewhere = await anonymous.at(server.baseUrl).post(PATHS.auth, { username: email, password });
    expectStatus(elsewhere, 200, 'the same account signs in from another address');
  });
});

describe('secrets at rest and in logs', () => {
  test('passwords are stored as argon2id hashes; no password, token, key or reset tag appears in the log', async () => {
    const email = uniqueEmail('secret');
    const password = strongPassword();
    const api = anonymous.at(server.baseUrl);
    const created = await api.post(PATHS.signup, { email, password });
    expectStatus(created, 201, 'signup');
    await proveEmail(email, server);
    const login = await api.post(PATHS.auth, { username: email, password });
    expectStatus(login, 200, 'login');
    const token = login.json.token as string;
    const me = new Api(token, 'token', server.baseUrl);
    const check = await me.get(PATHS.checktoken);
    expectStatus(check, 200);
    const key = await me.post(`/accounts/apikey/list/user/${created.json.sid}/detail/`, { name: 'logged?' });
    expectStatus(key, 201, 'an API key');
    expectStatus(await new Api(key.json.key, 'Bearer', server.baseUrl).get(PATHS.checktoken), 200);
    expectStatus(await me.via('Bearer').get(PATHS.checktoken), 200, 'the token as Authorization: Bearer');
    expectStatus(await api.post(PATHS.auth, { username: email, password: `${password}-wrong` }), 406, 'a failed login');
    expectStatus(await api.post(PATHS.forgetpassword, { email }), 200, 'a reset request');
    const mail = await readMail(email, { dataDir: server.dataDir });
    assert.ok(mail.tag, 'the reset mail carries a tag');
    const newPassword = strongPassword();
    expectStatus(await api.post(PATHS.resetpassword, { password: newPassword }, { query: { tag: mail.tag } }), 200, 'the reset');

    // Every answer carries the security headers, errors too.
    for (const res of [check, key, await api.get(PATHS.checktoken), await api.get('/no/such/path/')]) {
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${res.method} ${res.path}`);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', `${res.method} ${res.path}`);
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer', `${res.method} ${res.path}`);
    }

    const log = server.logTail(100_000);
    assert.ok(log.includes('/accounts/resetpassword/'), 'the log records the requests (LOG_LEVEL=debug)');
    for (const [what, secret] of [['password', password], ['new password', newPassword], ['wrong password', `${password}-wrong`],
      ['token', token], ['API key', key.json.key], ['reset tag', mail.tag]] as const) {
      assert.ok(!log.includes(secret), `the ${what} is not in the log`);
    }

    await changeBehindTheApi(async (run) => {
      const { rows } = await run('SELECT password_hash FROM users WHERE lower(email) = lower($1)', [email]);
      assert.equal(rows.length, 1);
      assert.match(rows[0].password_hash, /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/, 'an argon2id hash');
      assert.ok(!rows[0].password_hash.includes(newPassword), 'not the password itself');
      const stored = await run('SELECT key_hash FROM credentials WHERE key_hash = $1 OR key_hash = $2', [token, key.json.key]);
      assert.equal(stored.rows.length, 0, 'tokens and keys are not stored as they are');
    });
  });
});

/** The stored form of a credential (core/ids.ts hashSecret: SHA-256, hex). */
async function hashOf(secret: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(secret).digest('hex');
}
