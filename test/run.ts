// The test harness (`npm test`, after `npm run build`): runs the whole suite twice, on
// embedded PGlite and then on PostgreSQL, each time against a real server process on a
// free port with a fresh data folder (and, for PostgreSQL, a fresh database that is
// dropped afterwards, served by two worker processes).
//
//   TEST_DATABASE_URL   PostgreSQL server to create the test database on
//                       (default postgres://postgres@127.0.0.1:5432/postgres)
//   TEST_ONLY           pglite | postgres: run on one database only
//   TEST_FILES          a comma-separated subset of test files (paths or name fragments)
//   TEST_CONCURRENCY    test files run at once (default 2)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT } from './helpers/env.ts';
import { cleanEnv, startServer, type RunningServer } from './helpers/server.ts';

type Kind = 'pglite' | 'postgres';

const ADMIN_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY || 2);
/** A file that runs longer is stopped: a hang, not a slow machine (a busy PGlite pass took a suite over 600 s). */
const TEST_TIMEOUT_MS = 900_000;

/** Undo steps of the run in progress, newest first; run on success, failure and Ctrl-C alike. */
const cleanups: Array<() => Promise<void>> = [];
let interrupted = false;

async function cleanUp(): Promise<void> {
  while (cleanups.length) {
    const step = cleanups.pop()!;
    try {
      await step();
    } catch (err) {
      console.error(`run.ts: clean-up step failed: ${(err as Error).message}`);
    }
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\nrun.ts: ${signal}: stopping the tests and the server, cleaning up`);
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

/** Every test/**\/*.test.ts file, sorted. */
function testFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith('.test.ts')) found.push(path.relative(PROJECT_ROOT, full));
    }
  };
  walk(path.join(PROJECT_ROOT, 'test'));
  const wanted = (process.env.TEST_FILES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return found.sort().filter((file) => !wanted.length || wanted.some((w) => file.includes(w)));
}

/** Runs a command in its own process group; resolves with its exit code. Registered for Ctrl-C. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, onStdout?: (chunk: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(command, args, {
      cwd: PROJECT_ROOT,
      env,
      detached: true,
      stdio: ['ignore', onStdout ? 'pipe' : 'inherit', 'inherit'],
    });
    let done = false;
    const stop = async () => {
      if (done) return;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    cleanups.push(stop);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      process.stdout.write(chunk);
      onStdout?.(chunk);
    });
    child.on('exit', (code, signal) => {
      done = true;
      const index = cleanups.indexOf(stop);
      if (index !== -1) cleanups.splice(index, 1);
      resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1));
    });
  });
}

/** Creates a fresh database on ADMIN_URL; returns its URL and registers its removal. */
async function createDatabase(): Promise<{ name: string; url: string }> {
  const name = `records_test_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 10_000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`); // docs/testing.md: commits do not wait for another suite's WAL
  } finally {
    await admin.end();
  }
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 10_000 });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  });
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

interface Outcome {
  kind: Kind;
  ok: boolean;
  passed: number;
  failed: number;
  skipped: number;
  seconds: number;
  note: string;
}

/**
 * The instance's administrator, named with the operator's CLI before the server starts, as
 * an operator opening an instance to others would (docs/decisions.md, "The instance's
 * administrators"): so no test's account becomes it by being the first to prove its email.
 */
function nameInstanceAdmin(databaseUrl: string | null, dataDir: string): { email: string; password: string } {
  const email = 'instance-admin@records.test';
  const password = `Adm-${randomBytes(12).toString('base64url')}-7!`;
  const env = { ...cleanEnv(), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  const cli = (args: string[], input = '') => {
    const done = spawnSync(process.execPath, ['dist/cli.js', ...args], { cwd: PROJECT_ROOT, env, input, encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`node dist/cli.js ${args.join(' ')} exited with ${done.status}: ${done.stderr}`);
  };
  cli(['create-user', '--email', email, '--first-name', 'Instance', '--last-name', 'Admin'], `${password}\n`);
  cli(['instance-admin', '--grant', email]);
  return { email, password };
}

async function runSuite(kind: Kind, files: string[]): Promise<Outcome> {
  const started = Date.now();
  const outcome: Outcome = { kind, ok: false, passed: 0, failed: 0, skipped: 0, seconds: 0, note: '' };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `records-test-${kind}-`));
  cleanups.push(async () => fs.rmSync(work, { recursive: true, force: true }));
  const dataDir = path.join(work, 'data');
  const logFile = path.join(work, 'server.log');
  let server: RunningServer | null = null;
  try {
    let databaseUrl: string | null = null;
    if (kind === 'postgres') {
      const database = await createDatabase();
      databaseUrl = database.url;
      console.log(`\n=== PostgreSQL: database ${database.name} on ${new URL(ADMIN_URL).host}, 2 server processes (WORKERS=2), DATA_DIR=${dataDir}`);
    } else {
      console.log(`\n=== PGlite (embedded): DATA_DIR=${dataDir}`);
    }
    fs.mkdirSync(dataDir, { recursive: true });
    const instanceAdmin = nameInstanceAdmin(databaseUrl, dataDir);
    server = await startServer({ databaseUrl, dataDir, logFile, workers: kind === 'postgres' ? 2 : 1 });
    const running = server;
    cleanups.push(() => running.stop());
    console.log(`=== server ready on ${server.baseUrl}; running ${files.length} test files\n`);

    const counts: Record<string, number> = {};
    let buffer = '';
    const code = await run(process.execPath, [
      '--import', 'tsx',
      '--test', '--test-reporter=spec',
      `--test-concurrency=${CONCURRENCY}`,
      `--test-timeout=${TEST_TIMEOUT_MS}`,
      ...files,
    ], {
      ...process.env,
      BASE_URL: server.baseUrl,
      DATA_DIR: dataDir,
      TEST_DB_KIND: kind,
      TEST_INSTANCE_ADMIN_EMAIL: instanceAdmin.email,
      TEST_INSTANCE_ADMIN_PASSWORD: instanceAdmin.password,
      ...(databaseUrl ? { TEST_DATABASE_URL: databaseUrl } : { TEST_DATABASE_URL: '' }),
    }, (chunk) => {
      // The spec reporter closes with "ℹ pass N", "ℹ fail N" …: keep the counts.
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const m = /^\S+ (tests|pass|fail|skipped|todo|cancelled) (\d+)\s*$/.exec(line);
        if (m) counts[m[1]] = Number(m[2]);
      }
    });
    outcome.passed = counts.pass ?? 0;
    outcome.failed = (counts.fail ?? 0) + (counts.cancelled ?? 0);
    outcome.skipped = (counts.skipped ?? 0) + (counts.todo ?? 0);
    outcome.ok = code === 0 && outcome.failed === 0 && outcome.passed > 0;
    if (code !== 0) outcome.note = `node --test exited with ${code}`;
    else if (outcome.passed === 0) outcome.note = 'no test ran';
  } catch (err) {
    outcome.note = (err as Error).message;
    console.error(`run.ts: ${kind}: ${(err as Error).message}`);
  } finally {
    if (!outcome.ok && fs.existsSync(logFile)) {
      console.error(`\n---- ${kind}: last lines of the server log (${logFile}) ----`);
      console.error(fs.readFileSync(logFile, 'utf8').split('\n').slice(-80).join('\n'));
      console.error('---- end of the server log ----');
    }
    await cleanUp();
    outcome.seconds = (Date.now() - started) / 1000;
  }
  return outcome;
}

async function typecheck(): Promise<boolean> {
  console.log('=== typechecking the tests (tsc -p test)');
  const tsc = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  return (await run(process.execPath, [tsc, '-p', 'test'], process.env)) === 0;
}

async function main(): Promise<number> {
  const started = Date.now();
  const files = testFiles();
  if (!files.length) {
    console.error('run.ts: no test files found');
    return 1;
  }
  if (!(await typecheck())) {
    console.error('run.ts: the tests do not typecheck');
    return 1;
  }
  const only = process.env.TEST_ONLY;
  const kinds = (['pglite', 'postgres'] as const).filter((k) => !only || k === only);
  const outcomes: Outcome[] = [];
  for (const kind of kinds) {
    if (interrupted) break;
    outcomes.push(await runSuite(kind, files));
  }
  console.log('\n=== summary');
  for (const o of outcomes) {
    const name = o.kind === 'pglite' ? 'PGlite    ' : 'PostgreSQL';
    console.log(`${name}  ${o.ok ? 'ok  ' : 'FAIL'}  ${o.passed} passed, ${o.failed} failed, ${o.skipped} skipped  (${o.seconds.toFixed(1)} s)${o.note ? `  ${o.note}` : ''}`);
  }
  const passed = outcomes.reduce((n, o) => n + o.passed, 0);
  const failed = outcomes.reduce((n, o) => n + o.failed, 0);
  console.log(`total time ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`total: ${passed} passed, ${failed} failed`);
  return outcomes.length === kinds.length && outcomes.every((o) => o.ok) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  async (err) => {
    console.error(err);
    await cleanUp();
    process.exit(1);
  },
);
