// The owner is never locked out by strangers (issue 21, point 5), after OWASP's device
// cookies: a browser or client that signed in to the account before keeps an allowance
// of its own, so 60 client addresses hammering the account slow down only clients the
// account has never seen; the mailed unlock link trusts the client that follows it; a
// password reset ends the slow-down. Requests come from chosen loopback addresses
// (test/helpers/peer.ts), each one a client address to the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newUser, strongPassword, type TestUser } from '../helpers/factories.ts';
import { readMail } from '../helpers/mail.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { newPeerAddress, peerRequest, signInFrom, type PeerAnswer } from '../helpers/peer.ts';

const tally = (answers: PeerAnswer[]) => answers.reduce<Record<number, number>>((t, a) => ({ ...t, [a.status]: (t[a.status] ?? 0) + 1 }), {});

/** The `name=value` of the cookie `name` an answer sets. */
function cookieOf(answer: PeerAnswer, name: string): string {
  const all = ([] as string[]).concat(answer.headers['set-cookie'] ?? []);
  const found = all.find((c) => c.startsWith(`${name}=`));
  assert.ok(found, `a ${name} cookie in ${JSON.stringify(all)}`);
  return found.split(';')[0];
}

describe('strangers hammering an account do not lock its owner out', () => {
  let server: RunningServer;
  // 60 failures from all addresses slow the account down.
  const SLOWDOWN = 60;
  before(async () => {
    // One attempt every 900 s once slowed down: within this test, a slot a stranger took stays taken.
    server = await startServer({ env: { LOGIN_FAILURES_ACCOUNT_SLOWDOWN: String(SLOWDOWN), LOGIN_SLOWDOWN_SECONDS: '900' } });
  });
  after(async () => {
    await server?.stop();
  });

  const signIn = (from: string, user: { email: string }, password: string, cookie?: string, path = '/accounts/auth/') =>
    peerRequest('POST', path, { body: { username: user.email, password }, localAddress: from, baseUrl: server.baseUrl, headers: cookie ? { cookie } : {} });

  /**
   * 60 client addresses, a wrong password each at once (each attempt sees at most the 59
   * others' failures, below the slow-down), then again: the account is slowed down.
   */
  async function hammer(user: TestUser) {
    const attackers = Array.from({ length: 60 }, () => newPeerAddress());
    const first = await Promise.all(attackers.map((a) => signInFrom(a, user.email, 'guess-1', { baseUrl: server.baseUrl })));
    assert.deepEqual(tally(first), { 406: 60 }, 'one failure per address is within every per-address limit');
    const second = await Promise.all(attackers.map((a) => signInFrom(a, user.email, 'guess-2', { baseUrl: server.baseUrl })));
    assert.deepEqual(tally(second), { 406: 1, 429: 59 }, 'slowed down: one attempt gets through, for everyone the account has not seen');
  }

  test('the owner\'s browser (/accounts/session/) and SDK client (/accounts/auth/) that signed in before get in at once; the unlock link trusts a new one', async () => {
    const owner = await newUser('hammered', server);
    // Before the attack: the owner signs in from the web app and from a script that keeps cookies.
    const browserAt = newPeerAddress();
    const browser = cookieOf(await signIn(browserAt, owner, owner.password, undefined, '/accounts/session/'), 'records_device');
    const scriptAt = newPeerAddress();
    const script = cookieOf(await signIn(scriptAt, owner, owner.password), 'records_device');
    // A stranger's own account gives their client a device cookie too, for that account only.
    const stranger = await newUser('stranger', server);
    const strangerAt = newPeerAddress();
    const strangerCookie = cookieOf(await signIn(strangerAt, stranger, stranger.password), 'records_device');

    await hammer(owner);

    const fromBrowser = await signIn(browserAt, owner, owner.password, browser, '/accounts/session/');
    assert.equal(fromBrowser.status, 200, `the owner's browser: ${fromBrowser.text}`);
    assert.ok(cookieOf(fromBrowser, 'records_session'), 'signed in to the web app');
    const fromScript = await signIn(scriptAt, owner, owner.password, script);
    assert.equal(fromScript.status, 200, `the owner's script: ${fromScript.text}`);
    assert.ok(fromScript.json.token, 'a session token');
    // Anywhere else, the slow-down holds: a new client, and a stranger's cookie of another account.
    assert.equal((await signIn(newPeerAddress(), owner, owner.password)).status, 429, 'a client the account has never seen waits');
    assert.equal((await signIn(strangerAt, owner, owner.password, strangerCookie)).status, 429, 'a device cookie counts only for its own account');

    // The owner was mailed once: an unlock link, which trusts the client that follows it.
    const warning = await readMail(owner.email, { dataDir: server.dataDir, subject: /^Many failed sign-ins/ });
    const unlockTag = /\/accounts\/unlock\/\?tag=([A-Za-z0-9_%-]+)/.exec(warning.body)?.[1];
    assert.ok(unlockTag, `an unlock link in:\n${warning.body}`);
    const laptopAt = newPeerAddress();
    const unlocked = await peerRequest('POST', `/accounts/unlock/?tag=${unlockTag}`, { localAddress: laptopAt, baseUrl: server.baseUrl });
    assert.equal(unlocked.status, 200, unlocked.text);
    assert.deepEqual(unlocked.json, { detail: 'This browser may sign in now.' });
    const laptop = cookieOf(unlocked, 'records_device');
    assert.equal((await signIn(laptopAt, owner, owner.password, laptop, '/accounts/session/')).status, 200, 'the unlocked client gets in at once');
    const again = await peerRequest('POST', `/accounts/unlock/?tag=${unlockTag}`, { localAddress: newPeerAddress(), baseUrl: server.baseUrl });
    assert.equal(again.status, 400, 'the tag works once');
    assert.equal(again.headers['set-cookie'], undefined, 'and trusts no one the second time');
  });

  test('a trusted client has its own limit, wherever it connects from: 10 failures, then 429 for it alone', async () => {
    const owner = await newUser('ownlimit', server);
    const device = cookieOf(await signIn(newPeerAddress(), owner, owner.password), 'records_device');
    // A stolen cookie moving between addresses still has one count.
    const failures = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn(newPeerAddress(), owner, `wrong-${i}`, device)));
    assert.deepEqual(tally(failures), { 406: 10, 429: 2 }, 'the device\'s own count, checked and counted in one step');
    assert.equal((await signIn(newPeerAddress(), owner, owner.password, device)).status, 429, 'that client waits');
    assert.equal((await signIn(newPeerAddress(), owner, owner.password)).status, 200, 'its failures slow nobody else down');
  });

  test('a password reset ends the slow-down: the owner then gets in at once from anywhere', async () => {
    const owner = await newUser('resetter', server);
    await hammer(owner);
    assert.equal((await signIn(newPeerAddress(), owner, owner.password)).status, 429, 'slowed down');
    const askedAt = newPeerAddress();
    assert.equal((await peerRequest('POST', '/accounts/forgetpassword/', { body: { email: owner.email }, localAddress: askedAt, baseUrl: server.baseUrl })).status, 200);
    const mail = await readMail(owner.email, { dataDir: server.dataDir, subject: /^Reset your/ });
    const password = strongPassword();
    const reset = await peerRequest('POST', `/accounts/resetpassword/?tag=${mail.tag}`, { body: { password }, localAddress: askedAt, baseUrl: server.baseUrl });
    assert.equal(reset.status, 200, reset.text);
    assert.ok(cookieOf(reset, 'records_device'), 'the client that reset the password is trusted');
    const anywhere = await signIn(newPeerAddress(), owner, password);
    assert.equal(anywhere.status, 200, `from a client the account has never seen: ${anywhere.text}`);
    assert.equal((await signIn(newPeerAddress(), owner, owner.password)).status, 406, 'the old password is wrong now, and is checked, not slowed');
  });
});
