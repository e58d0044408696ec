// The README's walkthrough (Quick start: from sign-up to a cell) runs as written against
// the server under test (issue 12, point 11): its shell block is taken from README.md
// between `<!-- walkthrough:start -->` and `<!-- walkthrough:end -->` and run with bash,
// command by command; curl is made to fail on any 4xx/5xx (a .curlrc with
// `fail-with-body`), so a command that stopped working fails this test. Then the state it
// leaves is checked through the API, proving the email included (issue 11). It runs twice,
// with the block's own names (issue 22, point 12: a second run used to cascade into
// failures): from a folder that is not the project's, given DATA_DIR, then from the folder
// that holds the server's data folder, with the block's default DATA_DIR (./data).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BASE_URL, DATA_DIR, PROJECT_ROOT } from '../helpers/env.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { Api } from '../helpers/http.ts';
import { readMail } from '../helpers/mail.ts';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'records-walkthrough-'));
after(() => fs.rmSync(home, { recursive: true, force: true }));

/** The walkthrough's shell block, from the README. */
function walkthrough(): string {
  const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('<!-- walkthrough:start -->');
  const end = readme.indexOf('<!-- walkthrough:end -->');
  assert.ok(start >= 0 && end > start, 'the README marks its walkthrough');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start, end));
  assert.ok(block, 'the walkthrough is a sh block');
  return block[1];
}

/** Its commands: lines joined where they continue with a trailing backslash; comments and blank lines dropped. */
function commandsOf(block: string): string[] {
  const commands: string[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    if (!pending && (/^\s*#/.test(line) || !line.trim())) continue;
    pending += pending ? `\n${line}` : line;
    if (!line.endsWith('\\')) {
      commands.push(pending);
      pending = '';
    }
  }
  return commands;
}

interface Run { code: number | null; stdout: string; stderr: string }

function bash(script: string, cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the README walkthrough', () => {
  test('covers sign-up, proof of the email, sign-in, an organization, a project joined, a table, a widget, a column, a row, a cell, versions, a notification and an invitation', () => {
    const block = walkthrough();
    for (const [what, pattern] of Object.entries({
      'sign-up': /\/accounts\/signup\//, 'proof of the email': /\/accounts\/verifyemail\/\?tag=/, 'sign-in': /\/accounts\/auth\//,
      organization: /\/organizations\/organization\/list\/user\//, project: /\/projects\/project\/list\/organization\//,
      'joining the project': /\/projects\/member\/list\/project\//, table: /\/tables\/table\/list\/organization\//,
      widget: /\/widgets\/widget\/list\/organization\//, column: /\/tables\/column\/list\/organization\/.*table__sid=/,
      row: /\/tables\/row\/list\/organization\/.*table__sid=.*project__sid=/, cell: /\/tables\/cell\/list\/organization\/.*row__sid=/,
      versions: /\/tables\/version\/list\/organization\/.*row__sid=/, notification: /\/notifications\/notification\/list\/organization\//,
      invitation: /\/organizations\/personnel\/list\/organization\/.*INVITEE/,
    })) assert.match(block, pattern, `the walkthrough shows ${what}`);
  });

  /** Runs the walk in `cwd` with `env` (BASE, maybe DATA_DIR) and checks what it leaves; returns the run's names. */
  async function walk(cwd: string, env: Record<string, string>): Promise<{ email: string; org: string }> {
    const commands = commandsOf(walkthrough());
    const verifyAt = commands.findIndex((c) => c.includes('/accounts/verifyemail/?tag='));
    const script = ['set -uo pipefail', ...commands.flatMap((command, i) => [
      `echo "@@ ${i} start" >&2`,
      command,
      `__rc=$?; echo "@@ ${i} rc=$__rc" >&2`,
      `[ $__rc -eq 0 ] || exit $__rc`,
    ]), 'printf "@@VARS %s %s %s %s %s %s %s\\n" "$TOKEN" "$ORG" "$ROW" "$CELL" "$MYSELF" "$EMAIL" "$INVITEE"'].join('\n');
    const run = await bash(script, cwd, { ...env, CURL_HOME: home });
    const failed = /@@ (\d+) rc=([1-9]\d*)/.exec(run.stderr);
    const context = `exit ${run.code}; stderr:\n${run.stderr.slice(-3000)}\nstdout:\n${run.stdout.slice(-2000)}`;
    if (failed) assert.fail(`command ${failed[1]} failed: ${commands[Number(failed[1])]}\n${context}`);
    assert.equal(run.code, 0, context);
    assert.ok(verifyAt >= 0 && new RegExp(`@@ ${verifyAt} rc=0`).test(run.stderr), 'the email was proved by the mailed link');
    assert.doesNotMatch(run.stderr, /no folder .* here/, 'the data folder was found');

    const vars = /@@VARS (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)/.exec(run.stdout);
    assert.ok(vars, `the walk set its variables: ${context}`);
    const [, token, org, row, cell, myself, email, invitee] = vars;
    const api = new Api(token);
    const cells = expectStatus(await api.get(`/tables/cell/list/organization/${org}/detail/?row__sid=${row}`), 200).json.results;
    assert.deepEqual(cells.map((c: any) => [c.sid, c.data]), [[cell, '12.6 g']], 'the cell holds the changed value');
    const versions = expectStatus(await api.get(`/tables/version/list/organization/${org}/list/?row__sid=${row}`), 200).json.results;
    assert.deepEqual(versions.map((v: any) => [v.version, v.commit]), [[1, null], [2, null], [3, 'weighed twice']], 'three versions, the last with its commit');
    const inbox = expectStatus(await api.get(`/notifications/notification/list/organization/${org}/list/`), 200).json.results;
    assert.ok(inbox.some((n: any) => n.name === 'Sample 1 weighed' && n.From.sid === myself), 'the notification is in the inbox');
    const invitation = await readMail(invitee);
    assert.ok(invitation.tag, 'the invitee got a mail with a tag to set a password');
    return { email, org };
  }

  test('runs as written against the server, and leaves what it says, run again from another folder too', async () => {
    fs.writeFileSync(path.join(home, '.curlrc'), 'fail-with-body\nshow-error\n');
    assert.notEqual(path.resolve(home), path.resolve(PROJECT_ROOT));
    const first = await walk(home, { BASE: BASE_URL, DATA_DIR });
    // Again, with nothing changed in the block: from the folder that holds the data folder, as `./data` in the clone's folder.
    assert.equal(path.basename(DATA_DIR), 'data', 'the harness\'s DATA_DIR is a folder named data');
    const second = await walk(path.dirname(DATA_DIR), { BASE: BASE_URL });
    assert.notEqual(second.email, first.email, 'each run signs up a new account of its own');
    assert.notEqual(second.org, first.org);
  });
});
