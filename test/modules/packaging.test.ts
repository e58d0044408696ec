// Packaging tells the truth (issue 16): package.json's `engines` names Node versions that
// every installed dependency supports, and the Node this runs on is one of them; npm start
// after a production install (`npm ci --omit=dev`) says what to do rather than failing on
// a missing compiler. The operator CLI runs from dist/ in the README's production install
// (`npm ci && npm run build && npm prune --omit=dev`), without compiling (issue 22, point 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import semver from 'semver';
import { DB_KIND, INITIAL_CREDITS, PROJECT_ROOT, TEST_DATABASE_URL } from '../helpers/env.ts';
import { cleanEnv } from '../helpers/server.ts';
import { strongPassword, uniqueEmail } from '../helpers/factories.ts';

const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8'));

test('every Node version engines allows is one every installed dependency supports', () => {
  const ours: string = pkg.engines.node;
  assert.ok(semver.validRange(ours), `engines.node "${ours}" is a valid range`);
  assert.ok(semver.satisfies(process.version, ours), `this machine's Node ${process.version} is in engines.node "${ours}"`);
  // The oldest version of each major line we allow must satisfy every dependency.
  const lowest = ['20', '22', '24'].map((major) => semver.minVersion(semver.validRange(`>=${major}.0.0 <${Number(major) + 1}.0.0`)!)!)
    .map((floor) => {
      for (let minor = 0; minor < 60; minor += 1) {
        const candidate = `${floor.major}.${minor}.0`;
        if (semver.satisfies(candidate, ours)) return candidate;
      }
      return null;
    }).filter((v): v is string => v !== null);
  assert.ok(lowest.length, 'engines.node allows some version of Node 20, 22 or 24');
  const unsupported: string[] = [];
  for (const [where, entry] of Object.entries<any>(lock.packages)) {
    const range = typeof entry.engines === 'object' && !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
    if (!where || !range || entry.optional) continue;
    for (const version of lowest) {
      if (!semver.satisfies(version, range)) unsupported.push(`${where.replace(/^.*node_modules\//, '')} needs Node ${range}, engines allows ${version}`);
    }
  }
  assert.deepEqual(unsupported, []);
});

test('npm start without the build tools and without a build says how to install for production', () => {
  const scratch = fs.mkdtempSync(path.join(PROJECT_ROOT, '.packaging-'));
  try {
    fs.mkdirSync(path.join(scratch, 'scripts'));
    fs.copyFileSync(path.join(PROJECT_ROOT, 'scripts', 'build.mjs'), path.join(scratch, 'scripts', 'build.mjs'));
    const res = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: scratch, encoding: 'utf8', env: { PATH: process.env.PATH } });
    assert.equal(res.status, 1);
    assert.match(res.stderr, /npm ci && npm run build && npm prune --omit=dev/);
    // With a build in dist/, it starts from it.
    for (const file of ['server.js', 'cli.js', 'db/pgdata-template.tar.gz', 'db/pgdata-template.json', 'web/index.html']) {
      fs.mkdirSync(path.dirname(path.join(scratch, 'dist', file)), { recursive: true });
      fs.writeFileSync(path.join(scratch, 'dist', file), '');
    }
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: scratch, encoding: 'utf8', env: { PATH: process.env.PATH } });
    assert.equal(built.status, 0, built.stderr);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});

test('after npm prune --omit=dev the CLI runs from dist/ as the README shows it, without compiling', () => {
  // A copy of the project as the README's production install leaves it: built, then the
  // development dependencies pruned. Outside the project's folder, or Node and npm would find
  // the project's own node_modules above it. Its node_modules are the project's, linked file
  // by file (no download), then pruned by npm itself.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'records-pruned-'));
  try {
    for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts', 'src', 'web', 'dist']) {
      fs.cpSync(path.join(PROJECT_ROOT, entry), path.join(scratch, entry), { recursive: true, filter: (from) => !from.includes('node_modules') });
    }
    const link = spawnSync('cp', ['-al', path.join(PROJECT_ROOT, 'node_modules'), path.join(scratch, 'node_modules')], { encoding: 'utf8' });
    if (link.status === 0) {
      // npm rewrites its record of what is installed: a copy of its own, not a link to the project's.
      const record = path.join(scratch, 'node_modules', '.package-lock.json');
      fs.rmSync(record, { force: true });
      fs.copyFileSync(path.join(PROJECT_ROOT, 'node_modules', '.package-lock.json'), record);
      const prune = spawnSync('npm', ['prune', '--omit=dev', '--offline', '--no-audit', '--no-fund'], { cwd: scratch, encoding: 'utf8' });
      assert.equal(prune.status, 0, prune.stderr);
    } else {
      // Another file system than the project's: install the production dependencies from npm's cache.
      const install = spawnSync('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], { cwd: scratch, encoding: 'utf8' });
      assert.equal(install.status, 0, install.stderr);
    }
    for (const tool of ['typescript', 'vite', 'tsx']) assert.ok(!fs.existsSync(path.join(scratch, 'node_modules', tool)), `${tool} is pruned`);
    assert.ok(!fs.existsSync(path.join(scratch, 'node_modules', '.bin', 'tsc')), 'no tsc to run');
    const built = fs.statSync(path.join(scratch, 'dist', 'cli.js')).mtimeMs;

    const env = {
      ...cleanEnv(), INITIAL_CREDITS, LOG_LEVEL: 'warn',
      ...(DB_KIND === 'postgres' ? { DATABASE_URL: TEST_DATABASE_URL! } : { DATA_DIR: path.join(scratch, 'data') }),
    };
    const run = (command: string[], input?: string) => {
      const res = spawnSync(command[0]!, command.slice(1), { cwd: scratch, env, input, encoding: 'utf8', timeout: 60_000 });
      assert.equal(res.status, 0, `${command.join(' ')}: exit ${res.status}; stderr: ${res.stderr}`);
      assert.equal(res.stderr, '', `${command.join(' ')} writes nothing on stderr (no build step ran)`);
      return res.stdout;
    };
    assert.match(run([process.execPath, 'dist/cli.js', '--help']), /^The Records Service operator CLI\./);
    // The README's commands, through npm as it writes them.
    const cli = (args: string[], input?: string) => JSON.parse(run(['npm', 'run', '-s', 'cli', '--', ...args], input));
    assert.match(run(['npm', 'run', '-s', 'cli', '--', 'help']), /^The Records Service operator CLI\./);
    const email = uniqueEmail('pruned');
    const user = cli(['create-user', '--email', email, '--first-name', 'Ada', '--last-name', 'Lovelace'], `${strongPassword()}\n`);
    assert.equal(user.email, email);
    const organization = cli(['create-organization', '--name', 'Pruned Lab', '--admin-email', email, '--credits', '100.00']);
    assert.equal(organization.credits, '$100.00');
    assert.equal(cli(['credits', '--organization', organization.sid, '--add', '25.00']).credits, '$125.00');
    assert.equal(cli(['create-api-key', '--email', email, '--name', 'nightly import']).name, 'nightly import');
    assert.equal(cli(['prove-email', '--email', email]).is_email_verified, true);
    assert.equal(cli(['openapi']).openapi, '3.0.3');
    // npm start's build step keeps dist/ as it is.
    run([process.execPath, 'scripts/build.mjs']);
    assert.equal(fs.statSync(path.join(scratch, 'dist', 'cli.js')).mtimeMs, built, 'dist/cli.js was not rebuilt');
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
