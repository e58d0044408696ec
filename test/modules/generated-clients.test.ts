// Clients generated from the OpenAPI document by two generators from the npm registry
// (issue 22, point 11): openapi-typescript with openapi-fetch, and @hey-api/openapi-ts with
// its fetch client (both installed by `npm ci`: web/typegen, docs/decisions.md). Each is
// generated from the served /openapi.json into a temporary folder and compiled, with the
// walkthrough written against it (test/clients/), by tsc --strict, library files checked
// too and no casts; the walkthroughs' types prove that the row, cell, version, personnel
// and notification shapes hold no `unknown` (test/clients/no-unknown.ts). Then each walk
// runs against the server under test: sign up, prove the email (the tag from the mail
// file), sign in, an organization, a project joined, a table, a column, a row, a cell read
// and changed with If-Match, the stale If-Match refused, the versions as records and as
// row data, a notification; what it reports and what the server then holds are checked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BASE_URL, PROJECT_ROOT } from '../helpers/env.ts';
import { anonymous, Api } from '../helpers/http.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { login, PATHS, PROOF_SUBJECT } from '../helpers/factories.ts';
import { readMail } from '../helpers/mail.ts';
import { recordPaths } from '../helpers/records.ts';
import type { Walked } from '../clients/report.ts';

const TYPEGEN = path.join(PROJECT_ROOT, 'web', 'typegen', 'node_modules');
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'records-clients-'));
after(() => fs.rmSync(folder, { recursive: true, force: true }));

/** Runs node with `args` in the folder; asserts it exits 0 and returns its output. */
function node(args: string[], what: string): string {
  const run = spawnSync(process.execPath, args, { cwd: folder, encoding: 'utf8', timeout: 180_000 });
  const output = `${run.stdout}\n${run.stderr}`.trim();
  assert.equal(run.status, 0, `${what} failed:\n${output.slice(-4000)}`);
  return output;
}

before(async () => {
  const served = expectStatus(await anonymous.get(PATHS.openapi), 200).json;
  fs.writeFileSync(path.join(folder, 'openapi.json'), JSON.stringify(served));
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  // A strict project of its own: ES modules, fetch from the DOM library, nothing of Node's.
  fs.writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [],
      skipLibCheck: false, outDir: 'dist',
    },
    include: ['*.ts', 'openapi-typescript/**/*.ts', 'hey-api/**/*.ts'],
  }));
  // openapi-fetch (and the rest) from the project's node_modules.
  fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  for (const file of fs.readdirSync(path.join(PROJECT_ROOT, 'test', 'clients'))) {
    fs.copyFileSync(path.join(PROJECT_ROOT, 'test', 'clients', file), path.join(folder, file));
  }
  // @hey-api/openapi-ts reads the tsconfig for its import extensions (.js under NodeNext).
  fs.writeFileSync(path.join(folder, 'openapi-ts.config.mjs'), `export default ${JSON.stringify({
    input: path.join(folder, 'openapi.json'),
    output: { path: path.join(folder, 'hey-api'), tsConfigPath: path.join(folder, 'tsconfig.json') },
    plugins: ['@hey-api/client-fetch'],
  })};\n`);
});

/** The walk of one generated client, compiled; run against the server under test. */
async function runWalk(module: string): Promise<Walked> {
  const { walk } = await import(pathToFileURL(path.join(folder, 'dist', module)).href) as {
    walk: (baseUrl: string, proofTag: (email: string) => Promise<string>) => Promise<Walked>;
  };
  return walk(BASE_URL, async (email) => {
    const mail = await readMail(email, { subject: PROOF_SUBJECT });
    assert.ok(mail.verifyTag, `the proof mail to ${email} carries its tag`);
    return mail.verifyTag;
  });
}

/** What a walk reports, and what the server holds afterwards. */
async function checkWalk(walked: Walked) {
  assert.equal(walked.etags.created, walked.etags.read, "the cell's GET gives the ETag its create gave");
  assert.match(walked.etags.patched, /^"[A-Za-z0-9_-]{20,}"$/, 'the PATCH answer carries the new ETag');
  assert.notEqual(walked.etags.patched, walked.etags.created);
  assert.deepEqual(walked.stale, {
    status: 412, detail: `The cell changed since you read it: GET /tables/cell/detail/${walked.cell}/ and retry with its ETag.`,
  }, 'the If-Match of the create, sent again after the change');
  assert.deepEqual(walked.versions, [
    { version: 1, activity: 'Created the row' },
    { version: 2, activity: 'Created the cell of Weight' },
    { version: 3, activity: 'Changed the cell of Weight' },
  ]);
  assert.deepEqual(walked.data, ['', '12.5 g', '12.6 g'], "the cell in each version's row data");
  assert.equal(walked.personnel.email, walked.email);
  assert.equal(walked.personnel.is_administrator, true, "the organization's creator is its Admin");
  assert.deepEqual(walked.inbox, [{ name: 'Sample 1 weighed', is_read: false }]);

  const api = new Api(await login({ email: walked.email, password: 'correct horse battery staple' }));
  const cell = expectStatus(await api.get(recordPaths.cellDetail(walked.cell)), 200);
  assert.equal(cell.json.data, '12.6 g', 'the refused change did not land');
  assert.equal(cell.headers.get('etag'), walked.etags.patched, 'the ETag the walk last read is current');
}

describe('clients generated from openapi.json', () => {
  test('openapi-typescript and @hey-api/openapi-ts generate them from the served document, no type named with a number', () => {
    node([path.join(TYPEGEN, 'openapi-typescript', 'bin', 'cli.js'), 'openapi.json', '--output', 'openapi-typescript/schema.d.ts'], 'openapi-typescript');
    node([path.join(TYPEGEN, '@hey-api', 'openapi-ts', 'bin', 'run.js'), '--file', 'openapi-ts.config.mjs', '--silent', '--no-log-file'], '@hey-api/openapi-ts');
    const types = fs.readFileSync(path.join(folder, 'hey-api', 'types.gen.ts'), 'utf8');
    const numbered = [...types.matchAll(/^export type (\w*\d)\b/gm)].map((m) => m[1]);
    assert.deepEqual(numbered, [], 'a name the generator had to number (a component clashing with its own names)');
    assert.match(types, /^export type CellDetail = \{/m);
  });

  test('tsc --strict compiles both clients with their walkthroughs: no cast, no `unknown` in the common shapes', () => {
    node([path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], 'tsc --strict');
    for (const file of ['openapi-fetch-walk.ts', 'hey-api-walk.ts']) {
      // The code without its comments and strings.
      const code = fs.readFileSync(path.join(folder, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
        .replace(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, "''");
      assert.doesNotMatch(code, /\bas\s+(?!const\b)[\w{[(]/, `${file}: no cast`);
      assert.doesNotMatch(code, /[\w)\]]!(?!=)/, `${file}: no non-null assertion`);
    }
  });

  test('openapi-typescript + openapi-fetch: the walkthrough runs against the server', async () => {
    await checkWalk(await runWalk('openapi-fetch-walk.js'));
  });

  test('@hey-api/openapi-ts: the walkthrough runs against the server', async () => {
    await checkWalk(await runWalk('hey-api-walk.js'));
  });
});
