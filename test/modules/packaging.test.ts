// Packaging tells the truth (issue 16): package.json's `engines` names Node versions that
// every installed dependency supports, and the Node this runs on is one of them; npm start
// after a production install (`npm ci --omit=dev`) says what to do rather than failing on
// a missing compiler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import semver from 'semver';
import { PROJECT_ROOT } from '../helpers/env.ts';

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
