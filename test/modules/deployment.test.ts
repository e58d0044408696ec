// The supervisor recipe (issue 22, point 12): deploy/records-service.service is a unit
// systemd accepts (`systemd-analyze verify`, which parses it and checks that its command
// exists, without a running systemd), it starts the service again whenever it dies (the
// primary's death takes its workers along: cluster.test.ts), stops it the way the service
// drains, and deploy/records-service.env, the settings it reads, is a valid configuration
// of this service. .ci/run installs systemd-analyze (Debian's systemd package).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/env.ts';
import { SERVICE_VARIABLES } from '../helpers/server.ts';

const UNIT = path.join(PROJECT_ROOT, 'deploy', 'records-service.service');
const ENV_FILE = path.join(PROJECT_ROOT, 'deploy', 'records-service.env');

/** The unit's settings, by section: every value of each key, in order. */
function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | null = null;
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = sections[section[1]!] ??= {};
      continue;
    }
    const at = line.indexOf('=');
    assert.ok(current && at > 0, `a setting inside a section: ${line}`);
    (current[line.slice(0, at)] ??= []).push(line.slice(at + 1));
  }
  return sections;
}

test('systemd accepts the unit: systemd-analyze verify finds nothing to say', () => {
  // The unit names Debian's /usr/bin/node; verified with the node running this test where that differs.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-unit-'));
  try {
    const copy = path.join(dir, 'records-service.service');
    fs.writeFileSync(copy, fs.readFileSync(UNIT, 'utf8').replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `));
    const res = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    assert.equal(res.error, undefined, 'systemd-analyze is installed (.ci/run installs Debian\'s systemd package)');
    assert.equal(res.status, 0, res.stderr);
    assert.equal(`${res.stdout}${res.stderr}`, '', 'no warning either (an unknown key or a bad value is only warned about)');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the unit restarts the service whenever it dies and stops it as the service drains', () => {
  const unit = parseUnit(fs.readFileSync(UNIT, 'utf8'));
  const service = unit.Service!;
  const npmStart = JSON.parse(fs.readFileSync(path.join(path.dirname(UNIT), '..', 'package.json'), 'utf8')).scripts.start;
  assert.equal(npmStart, 'node --enable-source-maps --max-semi-space-size=2 --heap-growing-percent=100 dist/server.js');
  assert.deepEqual(service.ExecStart, [`/usr/bin/${npmStart}`], 'the server, as npm start runs it, without a build');
  assert.deepEqual(service.Restart, ['always'], 'started again after any exit, a killed primary included');
  assert.deepEqual(service.KillMode, ['mixed'], 'SIGTERM to the primary alone, which drains its workers');
  assert.deepEqual(service.KillSignal, ['SIGTERM']);
  assert.ok(Number(service.TimeoutStopSec?.[0]) > 20, 'systemd waits longer than the primary\'s own 20 s limit');
  assert.deepEqual(service.StateDirectory, ['records-service']);
  assert.deepEqual(service.Environment, ['DATA_DIR=/var/lib/records-service'], 'DATA_DIR is the state directory systemd makes');
  assert.deepEqual(service.EnvironmentFile, ['/etc/records-service/env']);
  assert.deepEqual(unit.Install?.WantedBy, ['multi-user.target']);
});

test('the example settings are a valid configuration of this service, each a setting it reads', () => {
  const settings: Record<string, string> = {};
  for (const line of fs.readFileSync(ENV_FILE, 'utf8').split('\n')) {
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const at = line.indexOf('=');
    settings[line.slice(0, at)] = line.slice(at + 1);
  }
  assert.deepEqual(Object.keys(settings).filter((name) => !SERVICE_VARIABLES.includes(name)), [], 'no name the service does not read');
  const check = spawnSync(process.execPath, ['--input-type=module', '-e', `
    const { loadConfig, settingTypos, ConfigError } = await import('./dist/config.js');
    try {
      const config = loadConfig(process.env);
      console.log(JSON.stringify({ typos: settingTypos(process.env), workers: config.workers, dataDir: config.dataDir }));
    } catch (err) {
      console.log(JSON.stringify({ problems: err instanceof ConfigError ? err.problems : [String(err)] }));
    }`], { cwd: PROJECT_ROOT, env: { ...settings, DATA_DIR: '/var/lib/records-service' }, encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  assert.deepEqual(JSON.parse(check.stdout), { typos: [], workers: 2, dataDir: '/var/lib/records-service' });
});
