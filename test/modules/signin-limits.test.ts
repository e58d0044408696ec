// Sign-in limits (issue 11, point 3), with real concurrent requests from chosen client
// addresses (127.x.y.z, all loopback): counting and checking are one atomic step; limits
// are per (client address, account) and per client address, so the owner from another
// address gets in at once; an account-wide slow-down only after many failures from many
// addresses, with a mail to the owner; X-Forwarded-For is believed only from the proxies
// named in TRUSTED_PROXIES.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newUser, PATHS, strongPassword, uniqueEmail } from '../helpers/factories.ts';
import { readMail } from '../helpers/mail.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { newPeerAddress, signInFrom, type PeerAnswer } from '../helpers/peer.ts';
import { anonymous } from '../helpers/http.ts';
import { expectStatus } from '../helpers/assertions.ts';

const tally = (answers: PeerAnswer[]) => answers.reduce<Record<number, number>>((t, a) => ({ ...t, [a.status]: (t[a.status] ?? 0) + 1 }), {});

describe('sign-in limits (the harness server: 10 per client and account, 50 per client address)', () => {
  test('120 concurrent wrong passwords: exactly 10 are checked, the rest 429; the owner from another address gets in at once', async () => {
    const user = await newUser('race');
    const attacker = newPeerAddress();
    const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => signInFrom(attacker, user.email, `wrong-${i}`)));
    assert.deepEqual(tally(answers), { 406: 10, 429: 110 }, 'the count and the check are one step');
    for (const a of answers.filter((x) => x.status === 429)) {
      const wait = Number(a.headers['retry-after']);
      assert.ok(Number.isInteger(wait) && wait > 0 && wait <= 900, `Retry-After ${a.headers['retry-after']}`);
    }
    assert.equal((await signInFrom(attacker, user.email, user.password)).status, 429, 'the right password from that address waits too');
    const owner = await signInFrom(newPeerAddress(), user.email, user.password);
    assert.equal(owner.status, 200, `the owner from another address: ${owner.text}`);
  });

  test('one attempt left, 40 concurrent attempts with the right password among them: exactly one is checked', async () => {
    const user = await newUser('race40');
    const attacker = newPeerAddress();
    for (let i = 0; i < 9; i += 1) assert.equal((await signInFrom(attacker, user.email, `wrong-${i}`)).status, 406);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => signInFrom(attacker, user.email, i === 20 ? user.password : `again-${i}`)));
    const checked = answers.filter((a) => a.status !== 429);
    assert.equal(checked.length, 1, `one attempt was left: ${JSON.stringify(tally(answers))}`);
    assert.ok([200, 406].includes(checked[0].status));
    assert.equal((await signInFrom(attacker, user.email, user.password)).status, 429, 'none is left now');
  });

  test('one busy address locks out no account from other addresses; its own limit counts only failures', async () => {
    const busy = newPeerAddress();
    const users = await Promise.all([newUser('busy1'), newUser('busy2')]);
    // 49 failures spread over accounts that do not exist (none reaches its own limit), at once.
    const failures = await Promise.all(Array.from({ length: 49 }, (_, i) => signInFrom(busy, uniqueEmail(`ghost${i}`), 'not-the-password')));
    assert.deepEqual(tally(failures), { 406: 49 });
    // Successes in between give their hit back: only failures count.
    for (const u of [...users, ...users]) assert.equal((await signInFrom(busy, u.email, u.password)).status, 200, 'a success from the busy address');
    assert.equal((await signInFrom(busy, uniqueEmail('ghost'), 'x')).status, 406, 'the 50th failure');
    const blocked = await signInFrom(busy, users[1].email, users[1].password);
    assert.equal(blocked.status, 429, 'after 50 failures the address waits');
    assert.equal((await signInFrom(newPeerAddress(), users[1].email, users[1].password)).status, 200, 'other addresses do not');
  });

  test('without TRUSTED_PROXIES, X-Forwarded-For is not believed', async () => {
    const user = await newUser('xff');
    const peer = newPeerAddress();
    for (let i = 0; i < 10; i += 1) {
      assert.equal((await signInFrom(peer, user.email, 'wrong', { headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } })).status, 406);
    }
    const res = await signInFrom(peer, user.email, user.password, { headers: { 'x-forwarded-for': '198.51.100.200' } });
    assert.equal(res.status, 429, 'a forged X-Forwarded-For is not another client');
  });
});

describe('sign-in behind a trusted proxy, and the account-wide slow-down', () => {
  const proxy = newPeerAddress();
  let server: RunningServer;
  before(async () => {
    server = await startServer({
      env: {
        TRUSTED_PROXIES: `${proxy}, 10.0.0.0/8`,
        LOGIN_FAILURES_PER_CLIENT: '3', LOGIN_FAILURES_ACCOUNT_SLOWDOWN: '12', LOGIN_SLOWDOWN_SECONDS: '60',
      },
    });
  });
  after(async () => {
    await server?.stop();
  });

  test('the proxy\'s X-Forwarded-For names the client: one client\'s failures do not hold up another behind the same proxy', async () => {
    const user = await newUser('proxied', server);
    const via = (client: string, password: string) =>
      signInFrom(proxy, user.email, password, { baseUrl: server.baseUrl, headers: { 'x-forwarded-for': `${client}, ${proxy}` } });
    for (let i = 0; i < 3; i += 1) assert.equal((await via('203.0.113.7', 'wrong')).status, 406);
    assert.equal((await via('203.0.113.7', user.password)).status, 429, 'that client waits');
    assert.equal((await via('203.0.113.8', user.password)).status, 200, 'another client behind the proxy gets in');
    // Someone who is not the proxy cannot pick their address.
    const stranger = newPeerAddress();
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await signInFrom(stranger, user.email, 'wrong', { baseUrl: server.baseUrl, headers: { 'x-forwarded-for': `192.0.2.${i}` } })).status, 406);
    }
    assert.equal((await signInFrom(stranger, user.email, user.password, { baseUrl: server.baseUrl, headers: { 'x-forwarded-for': '192.0.2.99' } })).status, 429);
  });

  test('many failures from many addresses slow the account down and mail its owner a reset link', async () => {
    const user = await newUser('slowdown', server);
    // 12 failures from 4 addresses (3 each, each address's limit).
    for (let a = 0; a < 4; a += 1) {
      const from = newPeerAddress();
      const answers = await Promise.all([0, 1, 2].map(() => signInFrom(from, user.email, 'wrong', { baseUrl: server.baseUrl })));
      assert.deepEqual(tally(answers), { 406: 3 });
    }
    const warning = await readMail(user.email, { dataDir: server.dataDir, subject: /^Many failed sign-ins/ });
    assert.match(warning.body, /12 failed attempts/);
    assert.ok(warning.tag, `a reset link:\n${warning.body}`);
    // Slowed down: one attempt per LOGIN_SLOWDOWN_SECONDS for the account, from anywhere.
    const burst = await Promise.all(Array.from({ length: 5 }, () => signInFrom(newPeerAddress(), user.email, user.password, { baseUrl: server.baseUrl })));
    assert.deepEqual(tally(burst), { 200: 1, 429: 4 }, 'one attempt gets through the slow-down');
    const retry = Number(burst.find((a) => a.status === 429)!.headers['retry-after']);
    assert.ok(retry > 0 && retry <= 60, `Retry-After ${retry}`);
    // Another account is not slowed down.
    const other = await newUser('notslowed', server);
    assert.equal((await signInFrom(newPeerAddress(), other.email, other.password, { baseUrl: server.baseUrl })).status, 200);
    // The reset link works (and proves nothing new: the address was proven).
    expectStatus(await anonymous.at(server.baseUrl).post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: warning.tag } }), 200);
  });
});
