// The embedded database admits one process per data folder (issue 12, point 8): with a
// server running on a folder, the operator CLI and a second server on the same folder
// refuse with a clear message and write nothing; once the server stops the CLI works, and
// the server started again has everything both acknowledged. A holder killed with SIGKILL
// does not lock the folder for good. (On both runs: the folder is the test's own PGlite.)
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expectStatus } from '../helpers/assertions.ts';
import { http } from '../helpers/http.ts';
import { PROJECT_ROOT } from '../helpers/env.ts';
import { cleanEnv, killGroup, startServer, type RunningServer } from '../helpers/server.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-lock-'));
const servers: RunningServer[] = [];

after(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env: { ...cleanEnv(), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const createUser = (email: string) => run(['dist/cli.js', 'create-user', '--email', email, '--password', 'correct horse battery', '--first-name', 'Cli', '--last-name', 'User']);
const inUse = (pid: number) => `The embedded database in ${dataDir} is open in another process (pid ${pid}), a running server or a CLI command: it admits one process at a time.`;

async function signIn(server: RunningServer, email: string) {
  return http('POST', '/accounts/auth/', { baseUrl: server.baseUrl, body: { username: email, password: 'correct horse battery' } });
}

describe('one process per embedded data folder', () => {
  test('with a server running, the CLI and a second server refuse and write nothing; after the server stops the CLI works; nothing acknowledged is lost', async () => {
    const first = await startServer({ databaseUrl: null, dataDir });
    servers.push(first);
    const viaApi = `api-${Date.now()}@records.test`;
    expectStatus(await http('POST', '/accounts/signup/', { baseUrl: first.baseUrl, body: { email: viaApi, password: 'correct horse battery' } }), 201, 'a signup through the server');

    const refusedEmail = `refused-${Date.now()}@records.test`;
    const refused = await createUser(refusedEmail);
    assert.notEqual(refused.code, 0, `the CLI refuses: ${refused.stdout} ${refused.stderr}`);
    assert.equal(refused.stdout, '', 'it prints no user');
    const error = JSON.parse(refused.stderr.trim().split('\n').pop()!);
    assert.ok(String(error.error).startsWith(inUse(first.pid)), `a clear message: ${refused.stderr}`);

    const second = await run(['dist/server.js'], { PORT: '0' });
    assert.equal(second.code, 1, 'a second server exits 1');
    assert.ok(second.stderr.includes(inUse(first.pid)), `and says why: ${second.stderr.slice(0, 500)}`);
    expectStatus(await http('GET', '/health/', { baseUrl: first.baseUrl }), 200, 'the first server still serves');
    expectStatus(await signIn(first, viaApi), 200, 'and its data');
    assert.equal((await signIn(first, refusedEmail)).status, 406, 'the refused CLI command wrote nothing');

    await first.stop();
    servers.pop();
    const cliEmail = `cli-${Date.now()}@records.test`;
    const made = await createUser(cliEmail);
    assert.equal(made.code, 0, `with the server stopped the CLI works: ${made.stderr}`);
    assert.equal(JSON.parse(made.stdout).email, cliEmail);

    const again = await startServer({ databaseUrl: null, dataDir });
    servers.push(again);
    expectStatus(await signIn(again, viaApi), 200, 'the user made through the server is there');
    expectStatus(await signIn(again, cliEmail), 200, 'the user made by the CLI is there');
    await again.stop();
    servers.pop();
  });

  test('a holder killed with SIGKILL does not lock the folder for good', async () => {
    const holder = await startServer({ databaseUrl: null, dataDir });
    servers.push(holder);
    killGroup(holder.pid, 'SIGKILL');
    await holder.exit;
    servers.pop();
    const email = `after-kill-${Date.now()}@records.test`;
    const made = await createUser(email);
    assert.equal(made.code, 0, `the CLI takes over the dead holder's lock at once: ${made.stderr}`);
  });
});
