// The benchmark (issue 6): `npm run bench` (full, under 15 minutes) or
// `npm run bench -- --quick` (under 2 minutes); `npm run bench -- --soak` (about 7 minutes)
// runs only the 5-minute soak of scenario 2, on the same seed.
//
// It creates a fresh PostgreSQL database, starts the service on it (WORKERS processes),
// seeds a realistic organization, drives each scenario with autocannon, measures the
// limits of this machine (a bare Fastify route, the same route doing SELECT 1 through a
// pg pool, pgbench running the SQL of one cell PATCH), runs scenarios 1 and 2 on the
// embedded database too, prints a table and writes bench/results/latest.json
// (quick runs: bench/results/quick.json). Whatever happens, it stops every process it
// started and drops its database.
//
//   BENCH_DATABASE_URL  PostgreSQL server to create the database on (default postgres://postgres@127.0.0.1:5432/postgres)
//   WORKERS             server processes of the service and of the limit routes (default 2)
//   --quick             one 3 s run per scenario at 10 connections, a smaller seed
//   --out FILE          where to write the results
//   --skip-embedded     leave out the embedded database
//   BENCH_SERVER_NODE_OPTIONS  NODE_OPTIONS for the service's processes (Node 20 refuses --cpu-prof there:
//                       profile with bench/profile.ts, which passes it on the command line)
//   --soak              only the soak (bench/soak.ts): scenario 2 at 10 connections for 300 s
//                       (--quick: 30 s), every server process's RSS after each 10 s (quick: 5 s);
//                       merged into the results file of the mode (latest.json / quick.json)
//   --soak-seconds N    the soak's length
//   --spread            only scenarios 2 and 2s (cell PATCH on one organization vs spread over
//                       10), at 10 and 50 connections, on the quick seed (--quick: 3 s runs); bench/results/spread.json
//   --web               only the web app's step (bench/frontend.ts), merged into the mode's results file
//   --files             only the files' step (bench/files.ts): upload and download throughput against cp at 1 and
//                       10 parallel transfers, and a 2 GiB file with the server's RSS sampled; bench/results/files.json
//   --import, --export  only the spreadsheets' step (bench/transfer.ts): a CSV of --rows N (default 10,000) × 10
//                       columns imported, beside the same rows written set-based; exported as CSV and NDJSON;
//                       the server's peak RSS; bench/results/transfer.json; with --postgres on PostgreSQL beside
//                       a real COPY (bench/results/transfer-postgres.json); --no-limit: without the COPY,
//                       --no-export: without the exports
//   --heavy             only the heavy answers' step (bench/heavy.ts, issue 21): 32 parallel requests of each of four
//                       lists filled to the row bound and 32 verifications, WORKERS=2 on PostgreSQL then embedded;
//                       peak RSS a process, deaths, answers whole or 503, another organization's PATCH p99 alone and in
//                       the crowd, event-loop delays, pool waits; `--profile` adds CPU profiles; bench/results/heavy.json
//   --embedded          only the embedded database's step (step 5, no PostgreSQL needed), merged into the mode's results file
//   --wait-quiet        the machine is shared: before each measurement, wait until other
//                       processes have used < 0.25 cores for 3 s (at most 60 s each time,
//                       5 minutes in all)
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { Managed, ROOT, START_NODE_FLAGS, type PeakRss, freePort, killAllStarted, stopAllStarted, waitForHttp, waitForWorkers, sleep } from './lib/processes.js';
import { CpuMonitor } from './lib/cpu.js';
import { drive, median, type Plan, type RequestSpec, type RunResult } from './lib/load.js';
import { call } from './lib/http.js';
import { WireCounter } from './lib/wire-counter.js';
import { pgbenchRun, type PgbenchRun } from './limits/pgbench.js';
import { measureInRounds, type Contender, type Measured } from './lib/rounds.js';
import { FULL_SIZE, QUICK_SIZE, seedEmbedded, seedPostgres, seedSpreadOrganizations, probeNotifications, type SeededPostgres } from './seed.js';
import {
  cellList, cellPatch, cellPatchEmbedded, cellPatchSpread, cellPost, gridList, inboxList, notificationPost, personnelList, rowList, stepList,
  versionList, workflowList, type Scenario,
} from './scenarios.js';
import { listStatements, measurePageCost, type ListStatements } from './page-cost.js';
import { soak } from './soak.js';
import { CHROMIUM, FRONTEND_FULL, FRONTEND_QUICK, measureFrontend } from './frontend.js';
import { checkTargets, compare, orgSpread, render, type PgbenchResult, type Results, type ScenarioResult } from './report.js';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const SKIP_EMBEDDED = argv.includes('--skip-embedded');
const WAIT_QUIET = argv.includes('--wait-quiet');
const SOAK = argv.includes('--soak');
const WEB_ONLY = argv.includes('--web');
const SPREAD_ONLY = argv.includes('--spread');
const EMBEDDED_ONLY = argv.includes('--embedded');
const SOAK_SECONDS = argv.includes('--soak-seconds') ? Number(argv[argv.indexOf('--soak-seconds') + 1]) : QUICK ? 30 : 300;
const OUT = argv.includes('--out') ? path.resolve(argv[argv.indexOf('--out') + 1]) : path.join(ROOT, 'bench', 'results', QUICK ? 'quick.json' : 'latest.json');
const WORKERS = Number(process.env.WORKERS || 2);
const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const PLAN: Plan = QUICK ? { warmupSeconds: 1, seconds: 3, runs: 1 } : { warmupSeconds: 3, seconds: 10, runs: 3 };
const CONNECTIONS = QUICK ? [10] : [10, 50];
const SIZE = QUICK || SPREAD_ONLY ? QUICK_SIZE : FULL_SIZE; // --spread: the seed's size does not matter to a PATCH
const EMBEDDED_SIZE = QUICK ? { personnel: 100, columns: 5, rows: 5 } : { personnel: 1000, columns: 5, rows: 40 };
const EMBEDDED_PLAN: Plan = QUICK ? PLAN : { warmupSeconds: 3, seconds: 10, runs: 1 };
const VERIFY_CALLS = QUICK ? 1 : 3;
const COUNT_REQUESTS = QUICK ? 5 : 20; // requests per scenario when counting database round trips
const PAGE_COST_RUNS = QUICK ? 10 : 30; // EXPLAIN ANALYZE runs of each row-list statement
// Scenario 7 over HTTP at 10 connections only: the full run must stay under 15 minutes.
const ONLY_AT_10 = ['7-row-list-small', '7-row-list-big'];
const INITIAL_CREDITS = '100000000000.00';
// Scenario 2s (issue 15, target 3): 9 more organizations of this many rows × columns, and
// the numbers of connections of --spread (the full run measures it at CONNECTIONS).
const SPREAD_SIZE = QUICK ? { rows: 50, columns: 5 } : { rows: 200, columns: 5 };
const SPREAD_CONNECTIONS = [10, 50];

const DB_NAME = `records_bench_${process.pid}`;
const LIMIT_DB_NAME = `${DB_NAME}_limit`;
const urlOf = (name: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};
const dbUrl = urlOf(DB_NAME);
const limitDbUrl = urlOf(LIMIT_DB_NAME);
/** The minimal transaction's data: 10 organizations, 10,000 records of 5 cells, writes to 1,000 of them. */
const MINIMAL = { orgs: 10, rows: 10_000, cols: 5, write_rows: 1_000 };

const started = Date.now();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-bench-'));
const cpu = new CpuMonitor(() => DB_NAME);
let databaseCreated = false;
let benchPool: pg.Pool | null = null;

const log = (line: string) => console.log(line);
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

/** Stops every process of the run and drops its database; safe to call twice. */
let cleaned = false;
async function cleanUp(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  cpu.stop();
  await stopAllStarted().catch(() => killAllStarted());
  if (benchPool) await benchPool.end().catch(() => {});
  if (databaseCreated) {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    try {
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS ${LIMIT_DB_NAME} WITH (FORCE)`);
    } catch (err) {
      console.error(`could not drop the database ${DB_NAME}: ${(err as Error).message}`);
    } finally {
      await admin.end().catch(() => {});
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the servers and dropping ${DB_NAME}`);
    void cleanUp().finally(() => process.exit(130));
  });
}
process.on('exit', () => killAllStarted());

function serviceEnv(port: number, options: { databaseUrl: string | null; workers: number; dataDir: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    WORKERS: String(options.workers),
    LOG_LEVEL: 'warn',
    DATA_DIR: options.dataDir,
    INITIAL_CREDITS,
    SIGNUP_ENABLED: 'true',
    // The benchmark sends tens of thousands of should_email notifications and 1,000 invitations from one Admin.
    MAIL_PER_USER_PER_HOUR: '1000000', INVITATIONS_PER_USER_PER_DAY: '1000000',
  };
  for (const name of ['DATABASE_URL', 'SMTP_URL', 'PUBLIC_URL', 'NODE_OPTIONS']) delete env[name];
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  // E.g. BENCH_SERVER_NODE_OPTIONS='--max-semi-space-size=16'; for CPU profiles see bench/profile.ts.
  if (process.env.BENCH_SERVER_NODE_OPTIONS) env.NODE_OPTIONS = process.env.BENCH_SERVER_NODE_OPTIONS;
  return env;
}

/** Starts `node dist/server.js` and waits until every worker serves. */

async function startService(
  label: string, options: { databaseUrl: string | null; workers: number; dataDir?: string },
): Promise<{ managed: Managed; base: string; dataDir: string }> {
  const port = await freePort();
  const dataDir = options.dataDir ?? path.join(tmp, `data-${label}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const managed = new Managed(label, process.execPath, [...START_NODE_FLAGS, path.join(ROOT, 'dist', 'server.js')],
    serviceEnv(port, { ...options, dataDir }), path.join(tmp, `${label}.log`), ROOT);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(managed, `${base}/health/`, 120_000);
  await waitForWorkers(managed, options.databaseUrl ? options.workers : 1);
  // Each worker listens after it forks: give the last one a moment, then check again.
  await sleep(500);
  await waitForHttp(managed, `${base}/health/`);
  return { managed, base, dataDir };
}

/** Sends one request of the scenario and insists on a 2xx: a broken scenario fails the run early and plainly. */
async function check(base: string, scenario: Scenario): Promise<void> {
  const next = scenario.spec.setup?.() ?? {};
  const headers = { ...scenario.spec.headers, ...next.headers };
  const body = next.body ?? scenario.spec.body;
  const response = await fetch(base + (next.path ?? scenario.spec.path), {
    method: scenario.spec.method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  if (response.status < 200 || response.status > 299) {
    throw new Error(`scenario ${scenario.id}: ${scenario.spec.method} ${next.path ?? scenario.spec.path} answered ${response.status}: ${text.slice(0, 500)}`);
  }
}

/**
 * With --wait-quiet: before a measurement, waits until other processes leave the machine
 * alone (< 0.25 cores for 3 s), at most 60 s each time and 5 minutes in all.
 */
let quietBudgetMs = 5 * 60_000;
async function quiet(): Promise<void> {
  if (!WAIT_QUIET || quietBudgetMs <= 0) return;
  const t0 = Date.now();
  const ok = await cpu.waitQuiet(0.25, 3000, Math.min(60_000, quietBudgetMs));
  const waited = Date.now() - t0;
  quietBudgetMs -= Math.max(0, waited - 3000);
  if (waited > 4000 || !ok) log(`  (waited ${(waited / 1000).toFixed(0)} s for other processes${ok ? '' : ', in vain'})`);
}

function notBuilt(scenario: Scenario, status: string): ScenarioResult {
  return {
    id: scenario.id, title: scenario.title, database: 'postgresql', status, connections: 0, runs: [], rps: NaN, p50_ms: NaN, p99_ms: NaN,
    non2xx: 0, errors: 0, status_codes: {},
  };
}

/** Scenario 6: verifying the long row's chain in one call, `calls` times; the median time. */
async function verifyLongRow(seed: SeededPostgres, calls: number) {
  await quiet();
  const times: number[] = [];
  let report: { versions: number; is_valid: boolean; head_version: number } | null = null;
  for (let i = 0; i < calls; i += 1) {
    const t0 = process.hrtime.bigint();
    const reply = await call(seed.base, 'GET', `/tables/row/detail/${seed.longRow}/verify/`, { token: seed.token });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (reply.status !== 200) throw new Error(`verify answered ${reply.status}: ${reply.text.slice(0, 300)}`);
    report = reply.body;
    times.push(seconds);
  }
  const seconds = median(times);
  return {
    row: seed.longRow, versions: report!.versions, head_version: report!.head_version, is_valid: report!.is_valid,
    calls, seconds: Math.round(seconds * 1000) / 1000, times: times.map((t) => Math.round(t * 1000) / 1000),
    versions_per_second: Math.round(report!.versions / seconds),
  };
}

/** Runs `work` against one server process whose database connections go through a wire counter. */
async function withWireCounter<T>(work: (counter: WireCounter, base: string) => Promise<T>): Promise<T> {
  const counter = await WireCounter.start({ host: new URL(dbUrl).hostname, port: Number(new URL(dbUrl).port || 5432) });
  const proxied = new URL(dbUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(counter.port);
  const { managed, base } = await startService('counting', { databaseUrl: proxied.toString(), workers: 1 });
  try {
    return await work(counter, base);
  } finally {
    await managed.stop();
    await counter.close();
  }
}

/**
 * The database round trips and statements of one request of each scenario, counted by a
 * wire-protocol proxy in front of PostgreSQL (one server process, requests one at a time).
 * The mail worker's polling is background work, not the request's: left out.
 */
async function countRoundTrips(counter: WireCounter, base: string, scenarios: Scenario[]) {
  const counts: Record<string, unknown> = {};
  for (const scenario of scenarios) {
    await check(base, scenario);
    counter.reset();
    for (let i = 0; i < COUNT_REQUESTS; i += 1) await check(base, scenario);
    // Every UPDATE of mail_outbox is the mail worker's (claims, lease renewals, outcomes).
    const background = (sql: string) => /^\s*UPDATE mail_outbox\b/i.test(sql);
    const statements = counter.statements.filter((s) => !background(s.sql));
    const backgroundTrips = counter.statements.length - statements.length;
    const last = statements.slice(-Math.round(statements.length / COUNT_REQUESTS));
    counts[scenario.id] = {
      round_trips: Math.round(((counter.roundTrips - backgroundTrips) / COUNT_REQUESTS) * 10) / 10,
      statements: Math.round((statements.length / COUNT_REQUESTS) * 10) / 10,
      one_request: last.map((s) => s.sql.replace(/\s+/g, ' ').trim().slice(0, 160)),
    };
  }
  return counts;
}

/** The statements (with their values) of one request of a row-list scenario: its page and count queries. */
async function captureList(counter: WireCounter, base: string, scenario: Scenario): Promise<ListStatements> {
  await check(base, scenario);
  counter.reset();
  await check(base, scenario);
  return listStatements(counter.statements);
}

function machine(postgresVersion: string) {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  return {
    cpu: /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1] ?? 'unknown',
    cores: os.availableParallelism(),
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    kernel: os.release(),
    node: process.version,
    postgresql: postgresVersion,
    load_average_at_start: load,
  };
}

/** The limit routes (bench/limits/bare.ts), WORKERS processes like the service. */
async function startBare(): Promise<{ managed: Managed; base: string }> {
  const port = await freePort();
  const managed = new Managed('bare', process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'limits', 'bare.ts')],
    { ...process.env, PORT: String(port), HOST: '127.0.0.1', WORKERS: String(WORKERS), DATABASE_URL: dbUrl },
    path.join(tmp, 'bare.log'), ROOT);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(managed, `${base}/health`);
  await waitForWorkers(managed, WORKERS);
  await sleep(500);
  return { managed, base };
}

/**
 * Waits (at most 40 s) until PostgreSQL has room for `connections` more clients: the
 * server is shared, and the service's idle pool connections close after 30 s.
 */
async function spareConnections(connections: number): Promise<void> {
  for (let waited = 0; ; waited += 2000) {
    const { rows: [row] } = await benchPool!.query(
      "SELECT current_setting('max_connections')::int - count(*)::int AS free FROM pg_stat_activity WHERE backend_type = 'client backend'");
    if (row.free >= connections + 5) return;
    if (waited >= 40_000) {
      log(`  (only ${row.free} PostgreSQL connections free for pgbench -c ${connections}; trying anyway)`);
      return;
    }
    await sleep(2000);
  }
}

/** A pgbench run in the shape of an autocannon run (transactions as requests). */
function asRunResult(run: PgbenchRun, seconds: number): RunResult {
  return {
    rps: run.tps, p50_ms: run.p50_ms, p99_ms: run.p99_ms, mean_ms: NaN, requests: run.transactions, seconds,
    non2xx: 0, errors: run.failed, timeouts: 0, status_codes: {},
  };
}

function asPgbench(script: string, m: Measured): PgbenchResult {
  return {
    script, connections: m.connections, runs: m.runs.map((r) => (r as RunResult & { pgbench: PgbenchRun }).pgbench),
    tps: m.rps, p50_ms: m.p50_ms, p99_ms: m.p99_ms, failed: m.errors, cpu: m.cpu, cpu_ms_per_request: m.cpu_ms_per_request,
  };
}

/** One line of progress for a measured contender. */
function line(id: string, m: Measured): string {
  const cost = m.cpu_ms_per_request;
  return `  ${id.padEnd(22)} c=${String(m.connections).padStart(2)}  ${m.rps.toFixed(1).padStart(8)}/s  p50 ${m.p50_ms.toFixed(2)} ms  p99 ${m.p99_ms.toFixed(2)} ms`
    + `  non-2xx+errors ${m.non2xx + m.errors}  CPU ms/req srv ${cost.servers.toFixed(2)} pg ${cost.postgresql.toFixed(2)}; others ${m.cpu.other_cores.toFixed(2)} cores  [${elapsed()}]`;
}

/** Creates the run's database; the machine's description. */
async function createDatabase(): Promise<Record<string, unknown>> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'server.js'))) throw new Error('dist/server.js is missing: run `npm run build` (npm run bench does)');
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const postgresVersion = (await admin.query('SELECT version()')).rows[0].version as string;
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  databaseCreated = true;
  // The minimal transaction's own database (issue 15's write limit), with its schema and data.
  await admin.query(`CREATE DATABASE ${LIMIT_DB_NAME}`);
  await admin.end();
  await loadMinimalSchema();
  return machine(postgresVersion.replace(/ on .*/, ''));
}

/** Loads bench/limits/minimal/schema.sql (the shared bench's schema) into its database with psql. */
async function loadMinimalSchema(): Promise<void> {
  const url = new URL(limitDbUrl);
  const args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-v', `orgs=${MINIMAL.orgs}`, '-v', `rows=${MINIMAL.rows}`, '-v', `cols=${MINIMAL.cols}`,
    '-f', path.join(ROOT, 'bench', 'limits', 'minimal', 'schema.sql'),
    '-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'), LIMIT_DB_NAME];
  const env = { ...process.env, ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}) };
  await new Promise<void>((resolve, reject) => {
    execFile('psql', args, { env }, (error, _stdout, stderr) => (error ? reject(new Error(`psql (the minimal transaction's schema): ${stderr || error.message}`)) : resolve()));
  });
}

/** Results with nothing measured yet. */
function emptyResults(machineInfo: Record<string, unknown>): Results {
  return {
    mode: QUICK ? 'quick' : 'full',
    date: new Date().toISOString(),
    seconds: 0,
    machine: machineInfo,
    config: { workers: WORKERS, wait_quiet: WAIT_QUIET, pool_per_process: 10, connections: CONNECTIONS, plan: PLAN, embedded_plan: EMBEDDED_PLAN, initial_credits: INITIAL_CREDITS },
    seed: {},
    scenarios: [],
    verify: null,
    limits: { http: [], pgbench: [], pgbench_full: [], pgbench_minimal: [] },
    peak_rss: {},
    round_trips: {},
    page_cost: null,
    soak: null,
    frontend: null,
    embedded_memory: null,
    targets: [],
  };
}

/** The results already in OUT (another run's), or null. */
function previousResults(): Results | null {
  try {
    return JSON.parse(fs.readFileSync(OUT, 'utf8')) as Results;
  } catch {
    return null;
  }
}

/** Seeds the organization on the service with the bench's own connections (given back afterwards, but one). */
async function seedService(base: string, dataDir: string): Promise<SeededPostgres> {
  benchPool = new pg.Pool({ connectionString: dbUrl, max: 4 });
  benchPool.on('error', () => {});
  log(`[${elapsed()}] seeding ${SIZE.personnel} personnel, ${SIZE.projects} projects, ${SIZE.tables} tables of ${SIZE.columnsPerTable} columns, `
    + `${SIZE.rows.toLocaleString('en')} rows (${SIZE.smallTableRows.toLocaleString('en')} in table 1), a ${SIZE.longRowVersions.toLocaleString('en')}-version row`);
  const seed = await seedPostgres(base, benchPool, SIZE, log, path.join(dataDir, 'mail'));
  log(`[${elapsed()}] seeded in ${seed.seconds.total.toFixed(1)} s`);
  // From here on one connection of its own, given back when idle: pgbench at 50 needs the room.
  await benchPool.end();
  benchPool = new pg.Pool({ connectionString: dbUrl, max: 1, idleTimeoutMillis: 1000 });
  benchPool.on('error', () => {});
  return seed;
}

/** Scenario 2s: 9 more organizations seeded beside the seed's (issue 15, target 3). */
async function spreadScenario(base: string, dataDir: string, seed: SeededPostgres): Promise<Scenario> {
  const pool = new pg.Pool({ connectionString: dbUrl, max: 2 });
  try {
    const t = Date.now();
    const more = await seedSpreadOrganizations(base, pool, 9, SPREAD_SIZE, path.join(dataDir, 'mail'));
    log(`[${elapsed()}] seeded 9 more organizations of ${SPREAD_SIZE.rows} rows × ${SPREAD_SIZE.columns} cells in ${((Date.now() - t) / 1000).toFixed(1)} s (scenario 2s)`);
    return cellPatchSpread(seed, more);
  } finally {
    await pool.end();
  }
}

/**
 * `--spread`: only scenarios 2 and 2s (one organization vs 10), at 10 and 50 connections
 * (issue 15, target 3); written to --out (default bench/results/spread.json).
 */
async function spreadOnly() {
  log(`Records Service benchmark, scenario 2 vs 2s only: database ${DB_NAME}, WORKERS=${WORKERS}, tmp ${tmp}`);
  cpu.start();
  const machineInfo = await createDatabase();
  const service = await startService('postgresql', { databaseUrl: dbUrl, workers: WORKERS });
  const seed = await seedService(service.base, service.dataDir);
  const scenarios = [cellPatch(seed), await spreadScenario(service.base, service.dataDir, seed)];
  for (const scenario of scenarios) await check(service.base, scenario);
  const results = { ...emptyResults(machineInfo), seconds: 0 };
  for (const connections of SPREAD_CONNECTIONS) {
    const measured = await measureInRounds(scenarios.map((s) => ({ id: s.id, run: (c: number, seconds: number) => drive(service.base, s.spec, c, seconds) })),
      connections, PLAN, { cpu, quiet, after: () => { service.managed.sample(); } });
    for (const scenario of scenarios) {
      const m = measured.get(scenario.id)!;
      log(line(scenario.id, m));
      results.scenarios.push({ id: scenario.id, title: scenario.title, database: 'postgresql', status: 'measured', ...m });
    }
  }
  await service.managed.stop();
  await benchPool?.end();
  benchPool = null;
  results.org_spread = orgSpread(results);
  results.seconds = Math.round((Date.now() - started) / 1000);
  results.targets = checkTargets(results);
  const out = argv.includes('--out') ? OUT : path.join(ROOT, 'bench', 'results', 'spread.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  log('\n' + render(results));
  log(`\nwritten to ${path.relative(process.cwd(), out)}`);
}

/**
 * `--soak`: only the soak of scenario 2 on a fresh seed; merged into OUT (the other
 * results there, another run's, are kept, and the targets checked again).
 */
async function soakOnly() {
  log(`Records Service benchmark, soak (${QUICK ? 'quick' : 'full'}, ${SOAK_SECONDS} s): database ${DB_NAME}, WORKERS=${WORKERS}, tmp ${tmp}`);
  cpu.start();
  const machineInfo = await createDatabase();
  log(`\n[${elapsed()}] starting the service on PostgreSQL (WORKERS=${WORKERS})`);
  const service = await startService('postgresql', { databaseUrl: dbUrl, workers: WORKERS });
  const seed = await seedService(service.base, service.dataDir);
  const scenario = cellPatch(seed);
  await check(service.base, scenario);
  const intervalSeconds = SOAK_SECONDS >= 120 ? 10 : 5;
  const warmupSeconds = Math.min(60, Math.round(SOAK_SECONDS / 3));
  log(`[${elapsed()}] soak: ${scenario.id} at 10 connections for ${SOAK_SECONDS} s, every server process's RSS after each ${intervalSeconds} s`);
  await quiet();
  const result = await soak(service.base, scenario, service.managed, cpu, { connections: 10, seconds: SOAK_SECONDS, intervalSeconds, warmupSeconds }, log);
  await service.managed.stop();

  const results = previousResults() ?? { ...emptyResults(machineInfo), seconds: Math.round((Date.now() - started) / 1000) };
  results.soak = result;
  results.targets = checkTargets(results);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(results, null, 2) + '\n');
  log('\n' + render(results));
  log(`\nthe soak took ${elapsed()}; written to ${path.relative(process.cwd(), OUT)}`);
}

/** `--web`: only the web app's step, on a fresh seed; merged into the mode's results file. */
async function webOnly() {
  log(`Records Service benchmark, the web app only (${QUICK ? 'quick' : 'full'}): database ${DB_NAME}, WORKERS=${WORKERS}, tmp ${tmp}`);
  cpu.start();
  const machineInfo = await createDatabase();
  const service = await startService('postgresql', { databaseUrl: dbUrl, workers: WORKERS });
  const seed = await seedService(service.base, service.dataDir);
  log(`[${elapsed()}] the web app in Chromium`);
  await quiet();
  const frontend = await measureFrontend(seed, benchPool!, QUICK ? FRONTEND_QUICK : FRONTEND_FULL, log);
  await service.managed.stop();
  const results = previousResults() ?? { ...emptyResults(machineInfo), seconds: Math.round((Date.now() - started) / 1000) };
  results.frontend = frontend;
  results.targets = checkTargets(results);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(results, null, 2) + '\n');
  log('\n' + render(results));
  log(`\nthe web app's step took ${elapsed()}; written to ${path.relative(process.cwd(), OUT)}`);
}

/** The spreadsheets' step runs on its own server and data (bench/transfer.ts), as a child process. */
async function transferOnly() {
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'transfer.ts'), ...argv.filter((a) => a !== '--import' && a !== '--export')], { stdio: 'inherit' });
    child.on('exit', (c) => resolve(c ?? 1));
  });
  process.exitCode = code;
}

/** The files' step (bench/files.ts) or the heavy answers' (bench/heavy.ts) runs on its own servers, as a child process. */
async function filesOnly(script = 'files.ts', flag = '--files') {
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', script), ...argv.filter((a) => a !== flag)], { stdio: 'inherit' });
    child.on('exit', (c) => resolve(c ?? 1));
  });
  process.exitCode = code;
}

type PreparedEmbedded = Awaited<ReturnType<typeof prepareEmbedded>>;

/**
 * The embedded server's first start on a new data folder (its peak RSS until /health/
 * answers), its seed through HTTP, then a restart on the same folder, as an operator's
 * server is; the restarted server is the one measured.
 */
async function prepareEmbedded() {
  const server = await startService('embedded', { databaseUrl: null, workers: 1 });
  const firstStart = server.managed.sample();
  const seeded = await seedEmbedded(server.base, EMBEDDED_SIZE, path.join(server.dataDir, 'mail'));
  // Each added member was mailed an invitation: let the mail worker finish writing them
  // (as .eml files, without SMTP_URL), so that it is idle during the measurements.
  const mailDir = path.join(server.dataDir, 'mail');
  const invitations = EMBEDDED_SIZE.personnel - 1;
  const deadline = Date.now() + 120_000;
  const written = () => (fs.existsSync(mailDir) ? fs.readdirSync(mailDir).filter((f) => f.endsWith('.eml')).length : 0);
  while (written() < invitations && Date.now() < deadline) await sleep(250);
  const seeding = server.managed.sample();
  await server.managed.stop();
  const restarted = await startService('embedded-restarted', { databaseUrl: null, workers: 1, dataDir: server.dataDir });
  const restartReady = restarted.managed.sample();
  return { server: restarted, seeded: { ...seeded, base: restarted.base }, firstStart, seeding, restartReady };
}

/** Scenarios 1 and 2 on the restarted embedded server at 10 connections; its memory from first start to the end of the load. */
async function measureEmbedded(results: Results, prepared: PreparedEmbedded): Promise<void> {
  const { server: embedded, seeded: eseed, firstStart, seeding, restartReady } = prepared;
  results.seed = { ...results.seed, embedded: { ...EMBEDDED_SIZE, seconds: eseed.seconds } };
  log(`[${elapsed()}] the service on the embedded database (PGlite, one process), seeded through HTTP in ${eseed.seconds.toFixed(1)} s: `
    + `${EMBEDDED_SIZE.personnel} personnel, ${eseed.rows.length} rows, ${eseed.cells.length} cells`);
  const embeddedScenarios = [personnelList(eseed, 'list'), personnelList(eseed, 'detail'), cellPatchEmbedded(eseed)];
  for (const scenario of embeddedScenarios) await check(embedded.base, scenario);
  const http = (id: string, base: string, spec: RequestSpec): Contender => ({ id, run: (c, seconds) => drive(base, spec, c, seconds) });
  const measured = await measureInRounds(embeddedScenarios.map((s) => http(s.id, embedded.base, s.spec)), 10, EMBEDDED_PLAN, {
    cpu, quiet, after: () => { embedded.managed.sample(); },
  });
  for (const scenario of embeddedScenarios) {
    const m = measured.get(scenario.id)!;
    log(line(scenario.id, m));
    results.scenarios.push({ id: scenario.id, title: scenario.title, database: 'embedded', status: 'measured', ...m });
  }
  const underLoad = embedded.managed.sample();
  await embedded.managed.stop();
  results.peak_rss.embedded_first_start = firstStart;
  results.peak_rss.embedded_seeding = seeding;
  results.peak_rss.embedded_restart_ready = restartReady;
  results.peak_rss.embedded = underLoad;
  const mb = (p: PeakRss[]) => p[0]?.peak_rss_mb ?? NaN;
  results.embedded_memory = {
    first_start_mb: mb(firstStart), seeding_mb: mb(seeding), restart_ready_mb: mb(restartReady), running_mb: mb(underLoad),
    targets: { first_start_mb: 300, running_mb: 200 },
  };
  log(`  embedded peak RSS: first start on a new folder ${mb(firstStart)} MB (then seeded: ${mb(seeding)} MB); `
    + `restarted: ${mb(restartReady)} MB when ready, ${mb(underLoad)} MB after the load`);
}

/** `--embedded`: only step 5; merged into the mode's results file (its embedded figures replaced). */
async function embeddedOnly() {
  log(`Records Service benchmark, the embedded database only (${QUICK ? 'quick' : 'full'}), tmp ${tmp}`);
  cpu.start();
  const prepared = await prepareEmbedded();
  const fresh = emptyResults(machine('–'));
  await measureEmbedded(fresh, prepared);
  const results = previousResults() ?? structuredClone(fresh);
  results.scenarios = [...results.scenarios.filter((s) => s.database !== 'embedded'), ...fresh.scenarios];
  for (const key of Object.keys(results.peak_rss)) if (key.startsWith('embedded')) delete results.peak_rss[key];
  Object.assign(results.peak_rss, fresh.peak_rss);
  results.embedded_memory = fresh.embedded_memory;
  results.seed = { ...results.seed, embedded: fresh.seed.embedded };
  results.targets = checkTargets(results);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(results, null, 2) + '\n');
  log('\n' + render(results));
  log(`\nthe embedded step took ${elapsed()}; written to ${path.relative(process.cwd(), OUT)}`);
}

async function main() {
  log(`Records Service benchmark (${QUICK ? 'quick' : 'full'}): database ${DB_NAME}, WORKERS=${WORKERS}, tmp ${tmp}`);
  cpu.start();
  const machineInfo = await createDatabase();
  const results = emptyResults(machineInfo);

  // The embedded server initializes its data folder and is seeded through HTTP while the
  // PostgreSQL organization is seeded; it idles until its turn.
  const embeddedReady = SKIP_EMBEDDED ? null : prepareEmbedded();
  embeddedReady?.catch(() => {}); // awaited below; a failure is reported there

  // 1. The service on PostgreSQL and the limit routes; the seed.
  log(`\n[${elapsed()}] starting the service on PostgreSQL (WORKERS=${WORKERS}) and the limit routes`);
  const service = await startService('postgresql', { databaseUrl: dbUrl, workers: WORKERS });
  const bare = await startBare();
  const seed = await seedService(service.base, service.dataDir);
  results.seed = { postgresql: { ...SIZE, seconds: seed.seconds } };

  const scenarios: Scenario[] = [
    personnelList(seed, 'list'), personnelList(seed, 'detail'), cellPatch(seed), cellPost(seed), cellList(seed), versionList(seed),
    rowList(seed, 'small'), rowList(seed, 'big'), gridList(seed), workflowList(seed), stepList(seed),
    await spreadScenario(service.base, service.dataDir, seed),
  ];
  // Scenario 7's deeper page, timed in PostgreSQL only: page 50, or the small table's last page.
  const deepPage = Math.min(50, Math.ceil(seed.smallTable.rows / 10));
  const deepPages = [rowList(seed, 'small', deepPage), rowList(seed, 'big', deepPage)];
  const probe = await probeNotifications(seed, seed.recipients);
  const notifications = [notificationPost(seed), inboxList(seed)];
  let notificationStatus = 'measured';
  if (probe.status === 404) notificationStatus = 'n/a (not built)';
  else if (probe.status < 200 || probe.status > 299) notificationStatus = `n/a (probe answered ${probe.status}: ${probe.text.slice(0, 120)})`;
  if (notificationStatus === 'measured') scenarios.push(...notifications);
  log(`[${elapsed()}] notifications: ${notificationStatus}`);
  for (const scenario of [...scenarios, ...deepPages]) await check(service.base, scenario);
  if (embeddedReady) {
    log(`[${elapsed()}] waiting for the embedded server to be seeded (nothing else may run during a measurement)`);
    await embeddedReady;
  }

  // 2. Scenarios 1–5 and the limits, in interleaved rounds at each number of connections.
  const variables = {
    org: seed.orgSid, user: seed.userSid, personnel: seed.personnelSid, price: seed.price,
    rows: SIZE.rows, cols: SIZE.columnsPerTable, token_hash: createHash('sha256').update(seed.token).digest('hex'),
  };
  const http = (id: string, base: string, spec: RequestSpec): Contender => ({ id, run: (c, seconds) => drive(base, spec, c, seconds) });
  const pgbench = (id: string, script: string): Contender => ({
    id,
    before: spareConnections,
    run: async (c, seconds) => {
      const run = await pgbenchRun(dbUrl, path.join(ROOT, 'bench', script), variables, c, seconds);
      return { ...asRunResult(run, seconds), pgbench: run } as RunResult;
    },
  });
  // Issue 15's write limit: the minimal transaction of the spec's cell write, in its own database.
  const minimal: Contender = {
    id: 'pgbench-minimal',
    before: spareConnections,
    run: async (c, seconds) => {
      const run = await pgbenchRun(limitDbUrl, path.join(ROOT, 'bench', 'limits', 'minimal', 'cell_update.pgbench'),
        { write_rows: MINIMAL.write_rows, cols: MINIMAL.cols }, c, seconds, ['-M', 'prepared']);
      return { ...asRunResult(run, seconds), pgbench: run } as RunResult;
    },
  };
  const byId = (id: string) => scenarios.find((s) => s.id === id);
  // Each limit next to the scenarios compared with it.
  const contenders: Contender[] = [
    ...['1-personnel-list', '1-personnel-detail'].map((id) => http(id, service.base, byId(id)!.spec)),
    http('select1', bare.base, { method: 'GET', path: '/select1' }),
    http('bare', bare.base, { method: 'GET', path: '/bare' }),
    http('2-cell-patch', service.base, byId('2-cell-patch')!.spec),
    pgbench('pgbench', 'cell-patch.sql'),
    minimal,
    ...scenarios.filter((s) => !['1-personnel-list', '1-personnel-detail', '2-cell-patch'].includes(s.id)).map((s) => http(s.id, service.base, s.spec)),
  ];
  const hooks = {
    cpu,
    quiet,
    after: (contender: Contender) => {
      if (!contender.id.startsWith('pgbench') && contender.id !== 'bare' && contender.id !== 'select1') service.managed.sample();
    },
  };
  const measuredById = new Map<string, Measured[]>();
  for (const connections of CONNECTIONS) {
    log(`[${elapsed()}] ${connections} connections: ${contenders.filter((c) => connections === 10 || !ONLY_AT_10.includes(c.id)).length} contenders, warm-up ${PLAN.warmupSeconds} s each, then ${PLAN.runs} round(s) of ${PLAN.seconds} s runs`);
    const measured = await measureInRounds(contenders.filter((c) => connections === 10 || !ONLY_AT_10.includes(c.id)), connections, PLAN, hooks);
    for (const [id, m] of measured) {
      measuredById.set(id, [...(measuredById.get(id) ?? []), m]);
      log(line(id, m));
    }
    // Every statement of the request, in pgbench: a diagnosis, not a target; one run.
    const full = await measureInRounds([pgbench('pgbench-full', 'cell-patch-full.sql')], connections, { warmupSeconds: 0, seconds: PLAN.seconds, runs: 1 }, hooks);
    for (const [id, m] of full) {
      measuredById.set(id, [...(measuredById.get(id) ?? []), m]);
      log(line(id, m));
    }
  }
  for (const scenario of scenarios) {
    for (const m of measuredById.get(scenario.id) ?? []) {
      results.scenarios.push({ id: scenario.id, title: scenario.title, database: 'postgresql', status: 'measured', ...m });
    }
  }
  if (notificationStatus !== 'measured') for (const s of notifications) results.scenarios.push(notBuilt(s, notificationStatus));
  for (const id of ['bare', 'select1'] as const) for (const m of measuredById.get(id) ?? []) results.limits.http.push({ id, ...m });
  results.limits.pgbench = (measuredById.get('pgbench') ?? []).map((m) => asPgbench('cell-patch.sql', m));
  results.limits.pgbench_full = (measuredById.get('pgbench-full') ?? []).map((m) => asPgbench('cell-patch-full.sql', m));
  results.limits.pgbench_minimal = (measuredById.get('pgbench-minimal') ?? []).map((m) => asPgbench('limits/minimal/cell_update.pgbench', m));

  // 3. Scenario 6.
  log(`[${elapsed()}] scenario 6: verifying the ${SIZE.longRowVersions.toLocaleString('en')}-version chain`);
  results.verify = await verifyLongRow(seed, VERIFY_CALLS);
  log(`  ${JSON.stringify(results.verify)}`);
  results.peak_rss.postgresql = service.managed.sample();

  // The web app in Chromium, on the same cores as the service (issue 14, point 6).
  if (fs.existsSync(CHROMIUM)) {
    log(`[${elapsed()}] the web app in Chromium: the grid's interactive time, a cell edit, scrolling, the bundle`);
    await quiet();
    results.frontend = await measureFrontend(seed, benchPool!, QUICK ? FRONTEND_QUICK : FRONTEND_FULL, log);
  } else {
    results.frontend = { status: `n/a (${CHROMIUM} is not installed: apt-get install chromium)` };
  }
  await service.managed.stop();
  await bare.managed.stop();
  await benchPool?.end();
  benchPool = null;

  // 4. Database round trips per request; the statements of scenario 7's requests, then
  // their page and count queries timed in PostgreSQL.
  log(`[${elapsed()}] counting database round trips per request`);
  const captured = await withWireCounter(async (counter, base) => {
    results.round_trips = await countRoundTrips(counter, base, scenarios);
    const lists = [];
    for (const [page, small, big] of [[1, scenarios.find((s) => s.id === '7-row-list-small')!, scenarios.find((s) => s.id === '7-row-list-big')!], [deepPage, ...deepPages]] as const) {
      lists.push({ page, small: await captureList(counter, base, small), big: await captureList(counter, base, big) });
    }
    return lists;
  });
  for (const [id, c] of Object.entries(results.round_trips)) log(`  ${id}: ${JSON.stringify((c as { round_trips: number }).round_trips)} round trips`);
  log(`[${elapsed()}] scenario 7: the row list's page and count queries, ${PAGE_COST_RUNS} EXPLAIN ANALYZE runs each`);
  await quiet();
  results.page_cost = await measurePageCost(dbUrl, captured, { small: seed.smallTable.rows, big: seed.bigTable.rows }, PAGE_COST_RUNS);
  for (const p of results.page_cost.pages) {
    log(`  page ${p.page}: page query ${p.small.page.total_ms} vs ${p.big.page.total_ms} ms; count ${p.small.count?.total_ms ?? '–'} vs ${p.big.count?.total_ms ?? '–'} ms`
      + (p.small.page.plan === p.big.page.plan ? `; page plan ${p.big.page.plan}` : `; page plans differ: ${p.small.page.plan} | ${p.big.page.plan}`));
  }

  // 5. Scenarios 1 and 2 on the embedded database (one process).
  if (embeddedReady) await measureEmbedded(results, await embeddedReady);

  compare(results, Object.fromEntries(scenarios.map((s) => [s.id, s.limit])));
  results.org_spread = orgSpread(results);
  results.machine.load_average_at_end = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  results.seconds = Math.round((Date.now() - started) / 1000);
  // A soak is a run of its own (--soak): the one already in the file stays, with its date.
  results.soak = previousResults()?.soak ?? null;
  results.targets = checkTargets(results);

  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(results, null, 2) + '\n');
  log('\n' + render(results));
  log(`\nwritten to ${path.relative(process.cwd(), OUT)}`);
}

(argv.includes('--heavy') ? filesOnly('heavy.ts', '--heavy') : argv.includes('--files') ? filesOnly() : argv.includes('--import') || argv.includes('--export') ? transferOnly() : SOAK ? soakOnly() : WEB_ONLY ? webOnly() : SPREAD_ONLY ? spreadOnly() : EMBEDDED_ONLY ? embeddedOnly() : main())
  .then(() => cleanUp())
  .catch(async (err) => {
    console.error(`\nbenchmark failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    await cleanUp();
    process.exit(1);
  });
