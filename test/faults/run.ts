// The fault tests (`npm run test:faults`, after `npm run build`): test/faults/*.fault.ts,
// one file at a time, each starting its own servers on PostgreSQL and doing harm to them
// (SIGKILL, a PostgreSQL restart, SIGTERM). Not part of `npm test`: they need PostgreSQL
// and, for the restart, the PostgreSQL server binaries to run a throwaway cluster.
//
//   TEST_DATABASE_URL   PostgreSQL server the fresh databases are made on (never restarted)
//                       (default postgres://postgres@127.0.0.1:5432/postgres)
//   TEST_FILES          a comma-separated subset of fault files (name fragments)
//   PG_BIN              PostgreSQL's bin folder (default: the newest /usr/lib/postgresql/*/bin)
//
// Every server, database and cluster a test makes is listed in a state file; whatever is
// left of them when the tests end (a failure, a crash, Ctrl-C) is removed here.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/env.ts';
import { SERVICE_VARIABLES } from '../helpers/server.ts';
import { undoResource, type Resource } from './lib.ts';

const FILE_TIMEOUT_MS = 180_000;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'records-faults-'));
const stateFile = path.join(work, 'resources.jsonl');
fs.writeFileSync(stateFile, '');
let child: { pid: number; exited: Promise<unknown>; done: boolean } | null = null;
let cleaning: Promise<void> | null = null;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Stops the tests (SIGINT, so they undo what they made; SIGKILL after 15 s), then undoes
 * every resource they listed and did not release, newest first.
 */
function cleanUp(): Promise<void> {
  cleaning ??= undoLeftovers();
  return cleaning;
}

async function undoLeftovers(): Promise<void> {
  const running = child;
  if (running && !running.done) {
    signalGroup(running.pid, 'SIGINT');
    const timer = new Promise((resolve) => setTimeout(resolve, 15_000).unref());
    await Promise.race([running.exited, timer]);
    signalGroup(running.pid, 'SIGKILL');
  }
  const lines = fs.readFileSync(stateFile, 'utf8').split('\n').filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; resource: Resource } | { released: string });
  const released = new Set(lines.flatMap((l) => ('released' in l ? [l.released] : [])));
  const resources = lines.flatMap((l) => ('id' in l && !released.has(l.id) ? [l.resource] : [])).reverse();
  for (const resource of resources) {
    try {
      await undoResource(resource);
    } catch (err) {
      console.error(`test/faults/run.ts: clean-up of ${JSON.stringify(resource)} failed: ${(err as Error).message}`);
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.error(`\ntest/faults/run.ts: ${signal}: stopping the tests, cleaning up`);
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

function faultFiles(): string[] {
  const dir = path.join(PROJECT_ROOT, 'test', 'faults');
  const wanted = (process.env.TEST_FILES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return fs.readdirSync(dir).filter((f) => f.endsWith('.fault.ts')).sort()
    .map((f) => path.join('test', 'faults', f))
    .filter((f) => !wanted.length || wanted.some((w) => f.includes(w)));
}

async function main(): Promise<number> {
  const started = Date.now();
  const files = faultFiles();
  if (!files.length) {
    console.error('test/faults/run.ts: no fault test files found');
    return 1;
  }
  console.log('=== typechecking the tests (tsc -p test)');
  const tsc = spawn(process.execPath, [path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'test'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  if ((await new Promise<number | null>((resolve) => tsc.on('exit', resolve))) !== 0) {
    console.error('test/faults/run.ts: the tests do not typecheck');
    return 1;
  }
  console.log(`=== fault tests: ${files.join(', ')} (one file at a time)\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, FAULT_STATE_FILE: stateFile };
  for (const key of SERVICE_VARIABLES) if (key !== 'TEST_DATABASE_URL') delete env[key];

  const counts: Record<string, number> = {};
  let buffer = '';
  const code = await new Promise<number>((resolve) => {
    const tests = spawn(process.execPath, [
      '--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', `--test-timeout=${FILE_TIMEOUT_MS}`, ...files,
    ], { cwd: PROJECT_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    const running = { pid: tests.pid!, done: false, exited: new Promise((r) => tests.once('exit', r)) };
    child = running;
    tests.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      process.stdout.write(chunk);
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const m = /^\S+ (tests|pass|fail|skipped|todo|cancelled) (\d+)\s*$/.exec(line);
        if (m) counts[m[1]] = Number(m[2]);
      }
    });
    tests.on('exit', (exitCode, signal) => {
      running.done = true;
      resolve(exitCode ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1));
    });
  });
  await cleanUp();
  const passed = counts.pass ?? 0;
  const failed = (counts.fail ?? 0) + (counts.cancelled ?? 0);
  const skipped = (counts.skipped ?? 0) + (counts.todo ?? 0);
  console.log(`\n=== fault tests: ${passed} passed, ${failed} failed, ${skipped} skipped (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return code === 0 && failed === 0 && skipped === 0 && passed > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  async (err) => {
    console.error(err);
    await cleanUp();
    process.exit(1);
  },
);
