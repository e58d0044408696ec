// The operator CLI (`node dist/cli.js`, what `npm run cli --` runs after building).
// On PostgreSQL it works on this run's database while the server under test runs, and
// the checks go through that server. On PGlite (one process per data folder) it works on
// a folder of its own, and each check starts a server on that folder once the CLI is done.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Api } from '../helpers/http.ts';
import { MESSAGES, assertKeys, assertPage, expectDetail, expectStatus } from '../helpers/assertions.ts';
import { PATHS, PROOF_SUBJECT, paths, strongPassword, uniqueEmail, unique } from '../helpers/factories.ts';
import { BASE_URL, DATA_DIR, DB_KIND, INITIAL_CREDITS, PROJECT_ROOT, TEST_DATABASE_URL } from '../helpers/env.ts';
import { cleanEnv, startServer } from '../helpers/server.ts';
import { readMail } from '../helpers/mail.ts';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
  error: any;
}

let cliDataDir: string;

/** Runs the CLI on this run's database (see the file comment). */
function cli(...args: string[]): Promise<CliResult> {
  return cliWith(null, ...args);
}

/** Runs the CLI with `input` on its standard input (a pipe; null: none). */
function cliWith(input: string | null, ...args: string[]): Promise<CliResult> {
  const env = {
    ...cleanEnv(),
    INITIAL_CREDITS,
    ...(DB_KIND === 'postgres' ? { DATABASE_URL: TEST_DATABASE_URL!, DATA_DIR: DATA_DIR } : { DATA_DIR: cliDataDir }),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], { cwd: PROJECT_ROOT, env, stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== null) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const parse = (text: string) => {
        try {
          return text.trim() ? JSON.parse(text) : undefined;
        } catch {
          return undefined;
        }
      };
      resolve({ code, stdout, stderr, json: parse(stdout), error: parse(stderr) });
    });
  });
}

/** The command succeeded: exit 0, JSON on stdout, nothing on stderr. */
function ok(res: CliResult, context = ''): any {
  assert.equal(res.code, 0, `${context} exit status; stderr: ${res.stderr}`);
  assert.ok(res.json !== undefined, `${context} prints JSON on stdout, got: ${res.stdout.slice(0, 500)}`);
  assert.equal(res.stderr, '', `${context} stderr is empty`);
  return res.json;
}

/** The command failed with `code`: JSON {error, fields?} on stderr, nothing on stdout. */
function failed(res: CliResult, code: number, context = ''): { error: string; fields?: Record<string, string[]>; help?: string } {
  assert.equal(res.code, code, `${context} exit status; stdout: ${res.stdout} stderr: ${res.stderr}`);
  assert.equal(res.stdout, '', `${context} nothing on stdout`);
  assert.ok(res.error && typeof res.error.error === 'string' && res.error.error.length > 0, `${context} a JSON error on stderr, got: ${res.stderr}`);
  return res.error;
}

/** Runs `check` against a server on the CLI's database. */
async function throughServer(check: (api: Api, base: string) => Promise<void>) {
  if (DB_KIND === 'postgres') return check(new Api(null, 'token', BASE_URL), BASE_URL);
  const server = await startServer({ databaseUrl: null, dataDir: cliDataDir });
  try {
    await check(new Api(null, 'token', server.baseUrl), server.baseUrl);
  } finally {
    await server.stop();
  }
}

async function signIn(anon: Api, email: string, password: string): Promise<{ api: Api; sid: string }> {
  const res = await anon.post(PATHS.auth, { username: email, password });
  expectStatus(res, 200, `sign-in of ${email}`);
  return { api: new Api(res.json.token, 'token', anon.baseUrl), sid: res.json.user.sid };
}

describe('operator CLI', () => {
  before(() => {
    cliDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-cli-'));
  });
  after(() => {
    fs.rmSync(cliDataDir, { recursive: true, force: true });
  });

  test('help is text for people naming every command, how passwords are given, and to stop the server for the embedded database', async () => {
    for (const args of [['help'], [], ['--help']]) {
      const res = await cli(...args);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stderr, '');
      assert.match(res.stdout, /^The Records Service operator CLI\.\n\nUsage: npm run cli -- <command>/);
      const commands = [...res.stdout.matchAll(/^  ([a-z-]+)(?: --|$)/gm)].map((m) => m[1]).sort();
      assert.deepEqual(commands, ['create-api-key', 'create-organization', 'create-user', 'credits', 'help', 'instance-admin', 'openapi', 'prove-email']);
      assert.match(res.stdout, /stop the server before using the CLI on it/);
      assert.match(res.stdout, /Passwords are never taken as arguments/);
    }
  });

  test('a password is never taken from the arguments: --password is refused before anything is done', async () => {
    const email = uniqueEmail('cliargv');
    for (const args of [['--password', strongPassword()], [`--password=${strongPassword()}`]]) {
      const res = failed(await cliWith(`${strongPassword()}\n`, 'create-user', '--email', email, ...args), 2);
      assert.match(res.error, /^passwords are not taken on the command line \(they show in ps and in shell history\)/);
      assert.equal(res.help, 'npm run cli -- help');
    }
    // Nothing was created: the same email is still free.
    ok(await cliWith(`${strongPassword()}\n`, 'create-user', '--email', email));
  });

  test('create-user refuses a password easy to guess, saying why (exit 2); nothing is created', async () => {
    const email = uniqueEmail('cliweak');
    for (const weak of ['password', '12345678']) {
      assert.deepEqual(failed(await cliWith(`${weak}\n`, 'create-user', '--email', email), 2), {
        error: 'invalid input',
        fields: { password: ['This password is too easy to guess. This is a heavily used password. Add more words that are less common.'] },
        help: 'npm run cli -- help',
      });
    }
    ok(await cliWith(`${strongPassword()}\n`, 'create-user', '--email', email), 'the email is still free');
  });

  test('create-user asks for the password at a terminal, twice, without showing it', async () => {
    const email = uniqueEmail('clitty');
    const password = strongPassword();
    const env = { ...cleanEnv(), INITIAL_CREDITS, ...(DB_KIND === 'postgres' ? { DATABASE_URL: TEST_DATABASE_URL!, DATA_DIR } : { DATA_DIR: cliDataDir }) };
    // util-linux's script(1) runs the CLI on a pseudo-terminal; the password is typed after each prompt.
    const child = spawn('script', ['-qc', `${process.execPath} dist/cli.js create-user --email ${email}`, '/dev/null'], { cwd: PROJECT_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { screen += c; });
    const waitFor = async (pattern: RegExp) => {
      for (let i = 0; i < 600 && !pattern.test(screen); i += 1) await new Promise((r) => setTimeout(r, 50));
      assert.match(screen, pattern);
    };
    await waitFor(/Password for .*: $/);
    child.stdin.write(`${password}\r`);
    await waitFor(/The same password again: $/);
    child.stdin.write(`${password}\r`);
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0, screen);
    assert.ok(!screen.includes(password), 'the password is shown on the terminal');
    assert.match(screen, new RegExp(`"email": "${email.replace(/[.+]/g, '\\$&')}"`));
  });

  test('bad usage: exit 2 with a JSON error', async () => {
    assert.match(failed(await cli('frobnicate'), 2).error, /unknown command "frobnicate"/);
    assert.match(failed(await cli('create-user', '--email', 'a@b.test', '--pasword', 'x'), 2).error, /unknown flag --pasword/);
    assert.match(failed(await cli('create-user', '--email', 'a@b.test'), 2).error, /^no password: type it at the prompt/);
    assert.match(failed(await cli('create-user', '--email', 'a@b.test', '--email', 'c@d.test'), 2).error, /--email is given twice/);
    assert.match(failed(await cli('create-user'), 2).error, /missing --email/);
    assert.match(failed(await cli('create-user', '--email'), 2).error, /--email needs a value/);
    assert.match(failed(await cli('create-user', 'stray'), 2).error, /unexpected argument "stray"/);
  });

  test('openapi prints the same document the server serves at /openapi.json', async () => {
    const printed = ok(await cli('openapi'));
    const served = await new Api().get(PATHS.openapi);
    expectStatus(served, 200);
    assert.deepEqual(printed, served.json);
  });

  test('create-user: an account that signs in; a taken email or bad input is refused', async () => {
    const email = uniqueEmail('cliuser');
    const password = strongPassword();
    const user = ok(await cliWith(`${password}\n`, 'create-user', '--email', email, '--first-name', 'Ada', '--last-name', 'Lovelace'));
    assertKeys(user, ['sid', 'email', 'first_name', 'last_name']);
    assert.deepEqual({ ...user, sid: 'x' }, { sid: 'x', email, first_name: 'Ada', last_name: 'Lovelace' });

    assert.deepEqual(failed(await cliWith(`${strongPassword()}\n`, 'create-user', '--email', email), 1),
      { error: 'invalid input', fields: { '--email': ['A user with this email already exists.'] } });
    assert.deepEqual(failed(await cliWith('short\n', 'create-user', '--email', 'not-an-email'), 2), {
      error: 'invalid input',
      fields: { '--email': ['Enter a valid email.'] },
      help: 'npm run cli -- help',
    });
    const other = uniqueEmail('clishort');
    failed(await cliWith('short\n', 'create-user', '--email', other), 2);

    await throughServer(async (anon) => {
      const session = await signIn(anon, email, password);
      assert.equal(session.sid, user.sid);
      // A CLI account counts as proven: it may do more than prove its email.
      expectStatus(await session.api.get(paths.organizationList(session.sid, 'name')), 200, 'a CLI account is proven');
      // The refused one made no account: a signup with it gets the proof of a new account.
      expectStatus(await anon.post(PATHS.signup, { email: other, password: strongPassword() }), 201);
      const mail = await readMail(other, { dataDir: DB_KIND === 'postgres' ? DATA_DIR : cliDataDir });
      assert.match(mail.subject, PROOF_SUBJECT);
    });
  });

  test('prove-email: marks an account\'s email proven (then it may do more than prove it); an unknown email is refused', async () => {
    const email = uniqueEmail('cliprove');
    const password = strongPassword();
    const dataDir = DB_KIND === 'postgres' ? DATA_DIR : cliDataDir;
    let sid = '';
    await throughServer(async (anon) => {
      expectStatus(await anon.post(PATHS.signup, { email, password }), 201);
      await readMail(email, { dataDir, subject: PROOF_SUBJECT }); // the link is not used
      const session = await signIn(anon, email, password);
      sid = session.sid;
      expectDetail(await session.api.get(paths.organizationList(sid, 'name')), 403, MESSAGES.emailNotVerified, 'unproven');
    });
    const proved = ok(await cli('prove-email', '--email', email.toUpperCase()));
    assert.deepEqual(proved, { sid, email, is_email_verified: true });
    await throughServer(async (anon) => {
      const session = await signIn(anon, email, password);
      expectStatus(await session.api.get(paths.organizationList(sid, 'name')), 200, 'proven by the operator');
    });
    assert.deepEqual(failed(await cli('prove-email', '--email', uniqueEmail('nobody')), 1).error.startsWith('no account with email'), true);
    failed(await cli('prove-email'), 2);
  });

  test('instance-admin: --grant makes an account an administrator of the instance, --revoke undoes it; bad usage refused', async () => {
    const email = uniqueEmail('clistrasse');
    const password = strongPassword();
    ok(await cliWith(`${password}\n`, 'create-user', '--email', email));
    const granted = ok(await cli('instance-admin', '--grant', email.toUpperCase()));
    assertKeys(granted, ['sid', 'email', 'is_instance_admin', 'administrators']);
    assert.deepEqual([granted.email, granted.is_instance_admin], [email, true]);
    assert.ok(granted.administrators >= 1);
    await throughServer(async (anon) => {
      const admin = await signIn(anon, email, password);
      assert.equal(expectStatus(await admin.api.get('/accounts/session/'), 200).json.user.is_instance_admin, true);
      expectStatus(await admin.api.get('/admin/settings/'), 200, "the administrators' routes");
    });
    // The account is found by its address's key (core/email.ts), however the address is spelled.
    const revoked = ok(await cli('instance-admin', '--revoke', email.replace('strasse', 'STRAßE')));
    assert.equal(revoked.is_instance_admin, false);
    assert.equal(revoked.administrators, granted.administrators - 1);
    await throughServer(async (anon) => {
      const user = await signIn(anon, email, password);
      expectDetail(await user.api.get('/admin/settings/'), 403, MESSAGES.forbidden);
    });
    assert.match(failed(await cli('instance-admin', '--grant', uniqueEmail('nobody')), 1).error, /^no account with email/);
    failed(await cli('instance-admin', '--grant', email, '--revoke', email), 2);
    failed(await cli('instance-admin'), 2);
  });

  test('create-organization for an existing account: that account is its Admin, with the credits given', async () => {
    const email = uniqueEmail('cliadmin');
    const password = strongPassword();
    ok(await cliWith(`${password}\n`, 'create-user', '--email', email, '--first-name', 'Grace', '--last-name', 'Hopper'));
    const name = `CLI Lab ${unique('o')}`;
    const org = ok(await cli('create-organization', '--name', name, '--admin-email', email, '--credits', '250.5', '--description', 'made by the CLI'));
    assertKeys(org, ['sid', 'name', 'description', 'credits', 'admin', 'invitation_sent']);
    assert.equal(org.name, name);
    assert.equal(org.credits, '$250.50');
    assert.equal(org.invitation_sent, false);
    assert.equal(org.admin.email, email);

    await throughServer(async (anon) => {
      const admin = await signIn(anon, email, password);
      const detail = await admin.api.get(paths.organizationDetail(org.sid));
      expectStatus(detail, 200);
      assert.equal(detail.json.credits, '$250.50');
      assert.equal(detail.json.description, 'made by the CLI');
      assert.equal(detail.json.change_permission, true);
      const people = assertPage(await admin.api.get(paths.personnelList(org.sid, 'list')), 'personnel.list');
      assert.equal(people.count, 1);
      assert.equal(people.add_permission, true);
      assert.deepEqual([people.results[0].email, people.results[0].name, people.results[0].is_administrator], [email, 'Grace Hopper', true]);
    });
  });

  test('create-organization for a new email: an account without a password and an invitation to choose one', async () => {
    const email = uniqueEmail('cliinvite');
    const org = ok(await cli('create-organization', '--name', 'Invited Lab', '--admin-email', email));
    assert.equal(org.invitation_sent, true);
    assert.equal(org.credits, `$${INITIAL_CREDITS}`, 'credits default to INITIAL_CREDITS');

    await throughServer(async (anon, base) => {
      const dataDir = DB_KIND === 'postgres' ? DATA_DIR : cliDataDir;
      const mail = await readMail(email, { dataDir });
      assert.equal(mail.subject, 'You are invited to Invited Lab on the Records Service');
      assert.ok(mail.tag, `the invitation carries a tag:\n${mail.body}`);
      const password = strongPassword();
      expectStatus(await anon.post(PATHS.resetpassword, { password }, { query: { tag: mail.tag } }), 200);
      const admin = await signIn(anon, email, password);
      assert.equal(admin.sid, org.admin.sid);
      const page = assertPage(await admin.api.get(paths.organizationList(admin.sid, 'list')), 'organization.list');
      assert.deepEqual(page.results.map((o) => [o.sid, o.change_permission]), [[org.sid, true]]);
      assert.ok(base);
    });
  });

  test('create-organization refuses bad input', async () => {
    failed(await cli('create-organization', '--name', '', '--admin-email', uniqueEmail('x')), 2);
    failed(await cli('create-organization', '--name', 'N'.repeat(256), '--admin-email', uniqueEmail('x')), 2);
    assert.deepEqual(failed(await cli('create-organization', '--name', 'Lab', '--admin-email', 'nobody'), 2).fields, { '--admin-email': ['Enter a valid email.'] });
    assert.ok(failed(await cli('create-organization', '--name', 'Lab', '--admin-email', uniqueEmail('x'), '--credits', '-1'), 2).fields?.['--credits']);
    assert.ok(failed(await cli('create-organization', '--name', 'Lab', '--admin-email', uniqueEmail('x'), '--credits', '1.005'), 2).fields?.['--credits']);
  });

  test('credits: --add and --set with exact decimals; never below zero; bad amounts and sids refused', async () => {
    const email = uniqueEmail('clicredits');
    const password = strongPassword();
    ok(await cliWith(`${password}\n`, 'create-user', '--email', email));
    const org = ok(await cli('create-organization', '--name', 'Credit Lab', '--admin-email', email, '--credits', '0.10'));
    const credits = async (...args: string[]) => ok(await cli('credits', '--organization', org.sid, ...args), args.join(' '));

    assert.deepEqual(await credits('--add', '+0.2'), { sid: org.sid, name: 'Credit Lab', credits: '$0.30', balance: '0.30' },
      'decimal, not floating point: 0.1 + 0.2 is 0.30');

    // Refused before the database is opened.
    assert.ok(failed(await cli('credits', '--organization', org.sid, '--set', '-1'), 2).fields?.['--set']);
    assert.ok(failed(await cli('credits', '--organization', org.sid, '--add', '1.234'), 2).fields?.['--add']);
    assert.ok(failed(await cli('credits', '--organization', org.sid, '--add', '1e3'), 2).fields?.['--add']);
    assert.ok(failed(await cli('credits', '--organization', org.sid, '--set', 'NaN'), 2).fields?.['--set']);
    assert.match(failed(await cli('credits', '--organization', org.sid, '--set', '1', '--add', '1'), 2).error, /exactly one of --set/);
    assert.match(failed(await cli('credits', '--organization', org.sid), 2).error, /exactly one of --set/);
    assert.match(failed(await cli('credits', '--organization', 'nope', '--set', '1'), 1).error, /no organization/);
    // Refused by the database, and nothing changes.
    assert.match(failed(await cli('credits', '--organization', org.sid, '--add', '-0.31'), 1).error, /cannot go below zero \(the balance is \$0\.30\)/);
    assert.match(failed(await cli('credits', '--organization', '0000000000000000', '--set', '1'), 1).error, /no organization/);
    assert.equal((await credits('--set', '999999999999.99')).credits, '$999999999999.99');
    assert.match(failed(await cli('credits', '--organization', org.sid, '--add', '0.01'), 1).error, /exceed/);
    assert.equal((await credits('--add', '-999999999987.49')).credits, '$12.50', 'a negative --add, after refusals that changed nothing');

    await throughServer(async (anon) => {
      const admin = await signIn(anon, email, password);
      const detail = await admin.api.get(paths.organizationDetail(org.sid));
      expectStatus(detail, 200);
      assert.equal(detail.json.credits, '$12.50', 'the server shows what the CLI set');
    });
  });

  test('create-api-key: prints the key once; it authenticates as Bearer and is listed without the key', async () => {
    const email = uniqueEmail('clikey');
    const password = strongPassword();
    const user = ok(await cliWith(`${password}\n`, 'create-user', '--email', email));
    const key = ok(await cli('create-api-key', '--email', email, '--name', 'nightly import'));
    assertKeys(key, ['sid', 'name', 'key', 'date_created', 'user']);
    assert.equal(key.name, 'nightly import');
    assert.deepEqual(key.user, { sid: user.sid, email });
    assert.ok(key.key.length >= 32);
    assert.match(failed(await cli('create-api-key', '--email', uniqueEmail('nobody'), '--name', 'x'), 1).error, /no account/);
    assert.deepEqual(failed(await cli('create-api-key', '--email', email, '--name', 'n'.repeat(151)), 2).fields,
      { '--name': ['Ensure this field has no more than 150 characters.'] });

    await throughServer(async (anon) => {
      const bearer = new Api(key.key, 'Bearer', anon.baseUrl);
      expectStatus(await bearer.get(PATHS.checktoken), 200);
      const list = await bearer.get(paths.apikeyList(user.sid, 'list'));
      const page = assertPage(list, 'apikey.list');
      assert.deepEqual(page.results.map((k) => [k.sid, k.name]), [[key.sid, 'nightly import']]);
      assert.ok(!list.text.includes(key.key));
    });
  });
});
