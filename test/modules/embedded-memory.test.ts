// The embedded database's memory (issue 15, target 6). A new data folder is made from the
// template the build packs (dist/db/pgdata-template.tar.gz, PGlite's initdb run once by
// the build) instead of initdb inside the server, which peaked at ~800 MB RSS: the first
// start peaks under 300 MB, the folder holds a working database that migrations brought
// up to date, and the server restarted on it keeps what it wrote. The restarted server
// peaks at ~195 MB when ready and 200–220 MB once it has served (a password check alone,
// argon2 in a thread of its own, adds ~20 MB): issue 15's 200 MB is not met yet
// (docs/decisions.md), so this guards the gain (~290 MB before) at 250 MB. (On both runs:
// the folder is the test's own PGlite.)
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expectStatus } from '../helpers/assertions.ts';
import { http } from '../helpers/http.ts';
import { PROJECT_ROOT } from '../helpers/env.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-embedded-memory-'));
const servers: RunningServer[] = [];

after(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The peak resident set of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const kb = Number(/^VmHWM:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}

describe('the embedded database in a new data folder', () => {
  test('the build packs a template made by the installed PGlite', () => {
    const info = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'dist', 'db', 'pgdata-template.json'), 'utf8'));
    const installed = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'));
    assert.equal(info.pglite, installed.version);
    assert.ok(fs.statSync(path.join(PROJECT_ROOT, 'dist', 'db', 'pgdata-template.tar.gz')).size > 100_000);
  });

  test('the first start peaks under 300 MB RSS and serves; restarted on the folder, the server keeps what it wrote and stays under 250 MB', async () => {
    const first = await startServer({ databaseUrl: null, dataDir });
    servers.push(first);
    const firstPeak = peakRssMb(first.pid);
    assert.ok(fs.existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION')), 'the folder holds a database');
    assert.deepEqual(fs.readdirSync(dataDir).filter((f) => f.startsWith('pgdata.new-')), [], 'no staging folder is left');
    const email = `memory-${Date.now()}@records.test`;
    expectStatus(await http('POST', '/accounts/signup/', { baseUrl: first.baseUrl, body: { email, password: 'correct horse battery' } }), 201, 'a signup on the new folder');
    await first.stop();
    assert.ok(firstPeak < 300, `the first start peaked at ${firstPeak.toFixed(1)} MB`);

    const again = await startServer({ databaseUrl: null, dataDir });
    servers.push(again);
    const signin = await http('POST', '/accounts/auth/', { baseUrl: again.baseUrl, body: { username: email, password: 'correct horse battery' } });
    expectStatus(signin, 200, 'the account made before the restart signs in');
    for (let i = 0; i < 20; i += 1) expectStatus(await http('GET', '/health/', { baseUrl: again.baseUrl }), 200, 'health');
    const runningPeak = peakRssMb(again.pid);
    await again.stop();
    assert.ok(runningPeak < 250, `the restarted server peaked at ${runningPeak.toFixed(1)} MB`);
  });
});
