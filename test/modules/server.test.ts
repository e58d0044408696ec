// Extra server processes (startServer): configuration at boot, SIGNUP_ENABLED, PUBLIC_URL,
// and several processes sharing one PostgreSQL database. With PGlite (one process per
// data folder) an extra server gets a folder of its own.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Api } from '../helpers/http.ts';
import { MESSAGES, assertPage, expectDetail, expectForbidden, expectInvalidToken, expectStatus } from '../helpers/assertions.ts';
import { PATHS, PROOF_SUBJECT, newUser, paths, strongPassword, uniqueEmail } from '../helpers/factories.ts';
import { DB_KIND } from '../helpers/env.ts';
import { startServer } from '../helpers/server.ts';
import { readMail } from '../helpers/mail.ts';

describe('extra server processes', () => {
  test('a bad configuration stops the server at boot with a list of every problem', async () => {
    await assert.rejects(
      startServer({
        env: {
          INITIAL_CREDITS: 'lots', TOKEN_IDLE_MINUTES: '0', LOG_LEVEL: 'chatty',
          TRUSTED_PROXIES: '10.0.0.1, proxy.example, 10.0.0.0/33', LOGIN_FAILURES_PER_CLIENT: '0',
        },
        startupSeconds: 30,
      }),
      (err: Error) => {
        assert.match(err.message, /exited \(code 2/);
        assert.match(err.message, /INITIAL_CREDITS must be a decimal amount like 10\.00, got "lots"/);
        assert.match(err.message, /TOKEN_IDLE_MINUTES must be a whole number from 1 to 525600, got "0"/);
        assert.match(err.message, /LOG_LEVEL must be one of/);
        assert.match(err.message, /TRUSTED_PROXIES must list IP addresses or CIDR ranges \(like 10\.0\.0\.0\/8\), got "proxy\.example"/);
        assert.match(err.message, /TRUSTED_PROXIES must list IP addresses or CIDR ranges \(like 10\.0\.0\.0\/8\), got "10\.0\.0\.0\/33"/);
        assert.match(err.message, /LOGIN_FAILURES_PER_CLIENT must be a whole number from 1 to 100000, got "0"/);
        return true;
      },
    );
  });

  test('SIGNUP_ENABLED=false: signup answers 403 and creates nothing; sign-in still works', async () => {
    const existing = await newUser('beforeclosing');
    const server = await startServer({ env: { SIGNUP_ENABLED: 'false' } });
    try {
      const anon = new Api(null, 'token', server.baseUrl);
      const email = uniqueEmail('closed');
      expectForbidden(await anon.post(PATHS.signup, { email, password: strongPassword() }));
      expectDetail(await anon.post(PATHS.auth, { username: email, password: 'whatever-password' }), 406, MESSAGES.badCredentials);
      if (DB_KIND === 'postgres') {
        // Same database: the account made through the main server signs in here.
        expectStatus(await anon.post(PATHS.auth, { username: existing.email, password: existing.password }), 200);
      } else {
        // Its own embedded database: nobody from the main server exists there.
        expectDetail(await anon.post(PATHS.auth, { username: existing.email, password: existing.password }), 406, MESSAGES.badCredentials);
      }
    } finally {
      await server.stop();
    }
  });

  test('PUBLIC_URL is the base of next/previous links and of emailed links', async () => {
    const publicUrl = 'https://records.example.test';
    const server = await startServer({ env: { PUBLIC_URL: publicUrl } });
    try {
      const anon = new Api(null, 'token', server.baseUrl);
      const email = uniqueEmail('public');
      const password = strongPassword();
      const created = await anon.post(PATHS.signup, { email, password });
      expectStatus(created, 201);
      const proof = await readMail(email, { dataDir: server.dataDir, subject: PROOF_SUBJECT });
      assert.ok(proof.body.includes(`POST ${publicUrl}/accounts/verifyemail/?tag=${proof.verifyTag}`), proof.body);
      expectStatus(await anon.post(PATHS.verifyemail, undefined, { query: { tag: proof.verifyTag } }), 200);
      const auth = await anon.post(PATHS.auth, { username: email, password });
      const api = new Api(auth.json.token, 'token', server.baseUrl);
      const org = await api.post(paths.organizationList(created.json.sid, 'detail'), { name: 'Public lab' });
      expectStatus(org, 201);
      const people = Array.from({ length: 10 }, (_, i) => ({ email: uniqueEmail(`pub${i}`) }));
      expectStatus(await api.post(paths.personnelList(org.json.sid, 'name'), people), 201);

      const page = assertPage(await api.get(paths.personnelList(org.json.sid, 'name', { page_size: 5 })), 'personnel.name');
      assert.equal(page.next, `${publicUrl}${paths.personnelList(org.json.sid, 'name', { page_size: 5, page: 2 })}`);
      const second = assertPage(await api.get(paths.personnelList(org.json.sid, 'name', { page_size: 5, page: 2 })));
      assert.equal(second.previous, `${publicUrl}${paths.personnelList(org.json.sid, 'name', { page_size: 5, page: 1 })}`);

      const invitation = await readMail(people[0].email, { dataDir: server.dataDir });
      assert.ok(invitation.body.includes(`POST ${publicUrl}/accounts/resetpassword/?tag=${invitation.tag}`), invitation.body);
      expectStatus(await anon.post(PATHS.forgetpassword, { email }), 200);
      const reset = await readMail(email, { dataDir: server.dataDir });
      assert.ok(reset.body.includes(`${publicUrl}/accounts/resetpassword/?tag=`), reset.body);
    } finally {
      await server.stop();
    }
  });

  test('two server processes: on PostgreSQL they share accounts and sessions; PGlite servers keep their own', async () => {
    const user = await newUser('twoprocesses');
    const server = await startServer({ workers: 2 });
    try {
      const there = user.api.at(server.baseUrl);
      if (DB_KIND === 'postgres') {
        expectStatus(await there.get(PATHS.checktoken), 200, 'a token from one process is valid on another');
        expectStatus(await there.post(paths.organizationList(user.sid, 'detail'), { name: 'Made elsewhere' }), 201);
        const orgs = assertPage(await user.api.get(paths.organizationList(user.sid, 'name')), 'organization.name');
        assert.deepEqual(orgs.results.map((o) => o.name), ['Made elsewhere'], 'written on one process, read on another');
        expectStatus(await there.get(PATHS.logout), 200);
        expectInvalidToken(await user.api.get(PATHS.checktoken), 'logged out everywhere');
      } else {
        expectInvalidToken(await there.get(PATHS.checktoken), 'a separate embedded database knows no token of the main one');
        expectStatus(await user.api.get(PATHS.checktoken), 200);
      }
    } finally {
      await server.stop();
    }
  });
});
