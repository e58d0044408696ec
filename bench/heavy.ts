// Heavy answers in a crowd (issue 21's Done-when): `npm run bench -- --heavy`.
// On PostgreSQL with WORKERS=2 (a 192 MB heap a worker, HEAP_LIMIT_MB's default), then on
// the embedded default: four lists filled to the row size bound — the grid, and the detail
// shapes of personnel, notifications and steps, 100 records of about 1 MB each (U+0001,
// written by JSON as 6 bytes) — are asked 32 times each at once with page_size=100, with 32
// verifications of a ~1 MB row of 40 versions, while another organization's client PATCHes
// cells. Measured: each server process's peak RSS (VmRSS, sampled every 50 ms), whether a
// process died, every answer complete and parsing or a 503 with Retry-After, and the other
// organization's PATCH latencies (p50, p99), alone first (200 PATCHes, the same run) and
// during the crowd; and where a PATCH's time goes: the server's longest event-loop delay,
// its PATCH and pool-wait times and memory (from /metrics), PostgreSQL's wait events.
// `--profile`: each server process also writes a CPU profile (bench/results/heavy-profile/).
// Writes bench/results/heavy.json.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { freePort } from './lib/processes.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const PARALLEL = 32;
const RECORDS = 100;
const VERSIONS = 40;
const BASELINE_PATCHES = 200;
const METRICS_TOKEN = 'bench-heavy-metrics';
const OUT = path.join(ROOT, 'bench', 'results', 'heavy.json');
// --profile: the server runs with --cpu-prof (its workers too) and is stopped gently, so
// each process writes a .cpuprofile into bench/results/heavy-profile/ (not committed).
const PROFILE_DIR = argv.includes('--profile') ? path.join(ROOT, 'bench', 'results', 'heavy-profile') : null;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-bench-heavy-'));
const log = (line: string) => console.log(line);
const fill = (chars: number, code = 1) => String.fromCharCode(code).repeat(chars);
let server: ChildProcess | null = null;

function stopServer() {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  server = null;
}
/** SIGTERM, and wait (up to 30 s) for the server to exit: its profiles are written on exit. */
async function stopGently() {
  const child = server;
  if (!child?.pid || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, 'SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
}
process.on('exit', () => {
  stopServer();
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));


/** The server's processes: the primary and its children (the workers). */
function processesOf(pid: number): number[] {
  const all = [pid];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) all.push(Number(entry));
    } catch {
      // gone
    }
  }
  return all;
}

function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

interface Client {
  base: string;
  key: string;
}

async function call(c: Client, method: string, target: string, body?: unknown): Promise<{ status: number; text: string; retryAfter: string | null }> {
  const res = await fetch(c.base + target, {
    method, headers: { authorization: `Token ${c.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(600_000),
  });
  return { status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') };
}

async function ok(c: Client, method: string, target: string, body?: unknown): Promise<any> {
  const res = await call(c, method, target, body);
  if (res.status >= 300) throw new Error(`${method} ${target}: ${res.status} ${res.text.slice(0, 300)}`);
  return JSON.parse(res.text);
}

async function inParallel(n: number, width: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await work(next++);
  }));
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
};

// The other organization's client runs on a thread of its own: the crowd's answers (100 MB
// of JSON each) are read and parsed on this thread, and would otherwise delay the PATCHes'
// own timing on the client side.
const PATCHER = `
const { parentPort, workerData: { base, key, cells, count } } = require('node:worker_threads');
let stopped = false;
parentPort.on('message', () => { stopped = true; });
const ms = []; let errors = 0; let sent = 0;
Promise.all([0, 1, 2, 3].map(async (w) => {
  for (let n = 0; !stopped && sent < count; n += 1) {
    sent += 1;
    const t = performance.now();
    const res = await fetch(base + '/tables/cell/detail/' + cells[(w + n * 4) % cells.length] + '/', {
      method: 'PATCH', headers: { authorization: 'Token ' + key, 'content-type': 'application/json' },
      body: JSON.stringify({ data: 'v' + n }), signal: AbortSignal.timeout(600000),
    }).then(async (r) => { await r.text(); return r.status; }, () => 0);
    ms.push(performance.now() - t);
    if (res !== 200) errors += 1;
  }
})).then(() => parentPort.postMessage({ ms, errors }));
`;

/** Another organization's cell PATCHes, 4 at a time, `count` of them or until stopped: their latencies. */
function patches(data: { base: string; key: string; cells: string[]; count: number }) {
  const worker = new Worker(PATCHER, { eval: true, workerData: data });
  const done = new Promise<{ ms: number[]; errors: number }>((resolve, reject) => {
    worker.once('message', (result) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
  return { stop: () => worker.postMessage('stop'), done };
}

const summary = ({ ms, errors }: { ms: number[]; errors: number }) => ({ count: ms.length, errors, p50_ms: Math.round(pct(ms, 50)), p99_ms: Math.round(pct(ms, 99)), max_ms: Math.round(pct(ms, 100)) });

interface Scrape {
  /** Each worker's longest event-loop delay since the last scrape (prom-client resets it on each scrape), in ms. */
  lag: Record<string, number>;
  /** The embedded engine's WebAssembly memory, the V8 heap and its external memory, per worker, in MB. */
  memory_mb: Record<string, number>;
  /** Sums over the workers of histogram series: name{labels} → [count, sum, count ≤ 0.1 s, count ≤ 1 s]. */
  histograms: Record<string, number[]>;
}

/** The server's metrics now: event-loop delays, and where requests spent their time (the PATCHes, the pool waits). */
async function scrape(base: string): Promise<Scrape> {
  const text = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text()).catch(() => '');
  const lag: Record<string, number> = {};
  for (const m of text.matchAll(/^records_nodejs_eventloop_lag_max_seconds(?:\{([^}]*)\})? ([\d.e+-]+)$/gm)) {
    lag[/worker="(\d+)"/.exec(m[1] ?? '')?.[1] ?? 'process'] = Math.round(Number(m[2]) * 1000);
  }
  const memory_mb: Record<string, number> = {};
  for (const m of text.matchAll(/^records_(pglite_memory_bytes|nodejs_heap_size_total_bytes|nodejs_external_memory_bytes)(?:\{([^}]*)\})? ([\d.e+-]+)$/gm)) {
    const key = `${m[1].replace(/_bytes$/, '')}${/worker="(\d+)"/.exec(m[2] ?? '')?.[1] ?? ''}`;
    memory_mb[key] = Math.round(Number(m[3]) / 1048576);
  }
  const histograms: Record<string, number[]> = {};
  const series = [
    ['patch', /^records_http_request_duration_seconds_(count|sum|bucket)\{([^}]*method="PATCH"[^}]*route="\/tables\/cell\/detail\/:sid\/"[^}]*)\} ([\d.e+-]+)$/gm],
    ['pool_wait', /^records_db_pool_wait_seconds_(count|sum|bucket)(?:\{([^}]*)\})? ([\d.e+-]+)$/gm],
  ] as const;
  for (const [key, re] of series) {
    const h = (histograms[key] = [0, 0, 0, 0]);
    for (const m of text.matchAll(re)) {
      const value = Number(m[3]);
      if (m[1] === 'count') h[0] += value;
      else if (m[1] === 'sum') h[1] += value;
      else if (/le="0.1"/.test(m[2] ?? '')) h[2] += value;
      else if (/le="1"/.test(m[2] ?? '')) h[3] += value;
    }
  }
  return { lag, memory_mb, histograms };
}

/** What happened between two scrapes: how many, the mean in ms, and how many took over 0.1 s and over 1 s. */
function between(before: Scrape, after: Scrape, key: string) {
  const [c0, s0, a0, b0] = before.histograms[key] ?? [0, 0, 0, 0];
  const [c1, s1, a1, b1] = after.histograms[key] ?? [0, 0, 0, 0];
  const count = c1 - c0;
  return { count, mean_ms: count ? Math.round(((s1 - s0) / count) * 1000) : 0, over_100ms: count - (a1 - a0), over_1s: count - (b1 - b0) };
}

/** An organization of its own with an Admin and an API key (the CLI, no mail). */
function organization(env: NodeJS.ProcessEnv, label: string) {
  const cli = (args: string[], input?: string) => execFileSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), ...args], { env, input, encoding: 'utf8' });
  const email = `${label}@heavy.test`;
  cli(['create-user', '--email', email, '--first-name', 'Bench', '--last-name', label], 'bench heavy password 1\n');
  const org = JSON.parse(cli(['create-organization', '--name', `Heavy ${label}`, '--admin-email', email])).sid as string;
  const key = JSON.parse(cli(['create-api-key', '--email', email, '--name', 'bench'])).key as string;
  return { org, key };
}

async function seedTable(c: Client, org: string, columns: number) {
  const me = (await ok(c, 'GET', `/organizations/personnel/list/organization/${org}/name/`)).results[0];
  const project = await ok(c, 'POST', `/projects/project/list/organization/${org}/detail/`, { name: 'Heavy' });
  await ok(c, 'POST', `/projects/member/list/project/${project.sid}/detail/`, { personnel: me.sid, permission: 'admin' });
  const table = await ok(c, 'POST', `/tables/table/list/organization/${org}/detail/`, { name: 'Heavy' });
  const cols = [];
  for (let i = 0; i < columns; i += 1) cols.push(await ok(c, 'POST', `/tables/column/list/organization/${org}/detail/?table__sid=${table.sid}`, { name: `Text ${i}`, widget: 'builtinWidgetTxt', order: i }));
  return { me, project, table, cols };
}

async function scenario(mode: 'postgres' | 'embedded') {
  log(`\n== ${mode}: seeding`);
  const dataDir = path.join(tmp, mode);
  fs.mkdirSync(dataDir, { recursive: true });
  let databaseUrl: string | undefined;
  let admin: pg.Client | null = null;
  const dbName = `records_heavy_${process.pid}`;
  if (mode === 'postgres') {
    admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', WEB_DIR: path.join(tmp, 'no-web'),
    MAIL_PER_USER_PER_HOUR: '100000', METRICS_TOKEN, ...(mode === 'postgres' ? { DATABASE_URL: databaseUrl, WORKERS: '2' } : {}),
  };
  if (mode === 'embedded') delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The organizations are made by the CLI before the server holds the data (the embedded folder is one process's).
  const heavyOrg = organization(env, 'heavy');
  const otherOrg = organization(env, 'other');
  const logFile = path.join(tmp, `${mode}.log`);
  const out = fs.openSync(logFile, 'w');
  const profile = PROFILE_DIR ? [`--cpu-prof`, `--cpu-prof-dir=${path.join(PROFILE_DIR, mode)}`] : [];
  server = spawn(process.execPath, [...profile, path.join(ROOT, 'dist', 'server.js')], { env: { ...env, PORT: String(port) }, detached: true, stdio: ['ignore', out, out] });
  for (let i = 0; ; i += 1) {
    if ((await fetch(`${base}/health/`).then((r) => r.status).catch(() => 0)) === 200) break;
    if (i > 600) throw new Error(`the server did not start: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const h: Client = { base, key: heavyOrg.key };
  const o: Client = { base, key: otherOrg.key };
  const { me, project, table, cols } = await seedTable(h, heavyOrg.org, 2);
  const other = await seedTable(o, otherOrg.org, 1);
  const rowsPath = (org: string, t: string, p: string) => `/tables/row/list/organization/${org}/detail/?table__sid=${t}&project__sid=${p}`;
  // The grid: 100 rows filled to the bound (600,002 + 420,002 bytes of cells).
  const rows: any[] = [];
  await inParallel(RECORDS, 4, async (i) => {
    const row = await ok(h, 'POST', rowsPath(heavyOrg.org, table.sid, project.sid), { name: `Full ${i}` });
    const cells = [];
    for (const [c, chars] of [[0, 100_000], [1, 70_000]]) {
      cells.push(await ok(h, 'POST', `/tables/cell/list/organization/${heavyOrg.org}/detail/?row__sid=${row.sid}`, { column: cols[c].sid, data: fill(chars) }));
    }
    rows[i] = { ...row, cells };
  });
  // The verified row: 40 versions of about 1 MB.
  for (let i = 3; i < VERSIONS; i += 1) await ok(h, 'PATCH', `/tables/cell/detail/${rows[0].cells[0].sid}/`, { data: fill(100_000, 2 + (i % 20)) });
  // Personnel: 100 records whose metadata is ~1 MB.
  const people = await ok(h, 'POST', `/organizations/personnel/list/organization/${heavyOrg.org}/detail/`,
    Array.from({ length: RECORDS - 1 }, (_, i) => ({ email: `p${i}@heavy.test`, first_name: 'P', last_name: String(i) })));
  await inParallel(RECORDS, 4, async (i) => {
    const sid = i === 0 ? me.sid : people[i - 1].sid;
    await ok(h, 'PATCH', `/organizations/personnel/detail/${sid}/`, { metadata: [fill(170_000)] });
  });
  // Notifications: 100 to the Admin, each with a 100,000-character body.
  await inParallel(RECORDS, 4, async () => {
    await ok(h, 'POST', `/notifications/notification/list/organization/${heavyOrg.org}/detail/`, { to: [{ sid: me.sid }], name: 'Heavy', body: fill(100_000) });
  });
  // Steps: 100 notify steps whose settings hold a 100,000-character body.
  let steps = 0;
  const workflow = await ok(h, 'POST', `/tables/workflow/list/organization/${heavyOrg.org}/detail/`, { name: 'Heavy' });
  await inParallel(RECORDS, 4, async (i) => {
    const res = await call(h, 'POST', `/tables/step/list/organization/${heavyOrg.org}/detail/`, {
      name: `step ${i}`, workflow: workflow.sid, widget: 'builtinWidgetNtf', data: { to: [me.sid], name: 'Heavy', body: fill(100_000) },
    });
    if (res.status === 201) steps += 1;
    else if (i === 0) log(`  (a step of ~600 KB refused: ${res.status} ${res.text.slice(0, 200)})`);
  });
  // The other organization's cells.
  const otherRows: any[] = [];
  for (let i = 0; i < 10; i += 1) {
    const row = await ok(o, 'POST', rowsPath(otherOrg.org, other.table.sid, other.project.sid), { name: `Other ${i}` });
    otherRows.push(await ok(o, 'POST', `/tables/cell/list/organization/${otherOrg.org}/detail/?row__sid=${row.sid}`, { column: other.cols[0].sid, data: 'x' }));
  }
  log(`  seeded: ${RECORDS} rows, ${VERSIONS} versions, ${RECORDS} personnel, ${RECORDS} notifications, ${steps} steps`);

  const cells = otherRows.map((c) => c.sid as string);
  // The baseline: the same PATCHes, 4 at a time, with no crowd (same machine, same run).
  const loadBefore = os.loadavg()[0];
  const alone = await patches({ base, key: o.key, cells, count: BASELINE_PATCHES }).done;

  const pids = processesOf(server.pid!);
  const baseline = Object.fromEntries(pids.map((p) => [p, rssMb(p) ?? 0]));
  const peaks: Record<number, number> = { ...baseline };
  const sampler = setInterval(() => {
    for (const p of processesOf(server!.pid!)) {
      const rss = rssMb(p);
      if (rss !== null) peaks[p] = Math.max(peaks[p] ?? 0, rss);
    }
  }, 50);
  const before = await scrape(base); // from here: the scrape resets each worker's longest delay
  // PostgreSQL: what its sessions of this database wait on, sampled every 100 ms (statement's first word : wait).
  let waits: Record<string, number> | null = null;
  let sampling = false;
  const waitSampler = admin ? setInterval(() => {
    if (sampling) return;
    sampling = true;
    admin!.query<{ w: string }>(`SELECT split_part(ltrim(query), ' ', 1) || ' ' || state || ' : ' || coalesce(wait_event_type || '/' || wait_event, 'running') AS w
      FROM pg_stat_activity WHERE datname = $1 AND state <> 'idle' AND pid <> pg_backend_pid()`, [dbName]).then(({ rows }) => {
      waits ??= {};
      for (const { w } of rows) waits[w] = (waits[w] ?? 0) + 1;
    }, () => {}).finally(() => { sampling = false; });
  }, 100) : null;
  // Another organization's cell PATCHes, 4 at a time, for as long as the crowd lasts.
  const patcher = patches({ base, key: o.key, cells, count: Infinity });
  const kinds: [string, string, (j: any) => boolean][] = [
    ['grid', `/tables/row/list/table/${table.sid}/grid/?page_size=100`, (j) => j.results.length === RECORDS],
    ['personnel', `/organizations/personnel/list/organization/${heavyOrg.org}/detail/?page_size=100`, (j) => j.results.length === RECORDS],
    ['notifications', `/notifications/notification/list/organization/${heavyOrg.org}/detail/?page_size=100`, (j) => j.results.length === RECORDS],
    ['steps', `/tables/step/list/organization/${heavyOrg.org}/detail/?page_size=100`, (j) => j.results.length === steps],
    ['verify', `/tables/row/detail/${rows[0].sid}/verify/`, (j) => j.is_valid === true && j.versions === VERSIONS],
  ];
  const outcomes: Record<string, Record<string, number>> = {};
  const started = performance.now();
  log(`  the crowd: ${PARALLEL} of each of ${kinds.map((k) => k[0]).join(', ')} at once`);
  await Promise.all(kinds.flatMap(([what, target, complete]) => Array.from({ length: PARALLEL }, async () => {
    let outcome: string;
    try {
      const res = await call(h, 'GET', target);
      if (res.status === 503) outcome = res.retryAfter ? '503' : '503 without Retry-After';
      else if (res.status === 200) outcome = complete(JSON.parse(res.text)) ? 'complete' : 'incomplete';
      else outcome = String(res.status);
    } catch (error) {
      outcome = `failed (${(error as Error).message})`;
    }
    outcomes[what] ??= {};
    outcomes[what][outcome] = (outcomes[what][outcome] ?? 0) + 1;
  })));
  const crowdSeconds = (performance.now() - started) / 1000;
  patcher.stop();
  const crowd = await patcher.done;
  const after = await scrape(base);
  if (waitSampler) clearInterval(waitSampler);
  clearInterval(sampler);
  const alive = pids.filter((p) => rssMb(p) !== null);
  const health = await fetch(`${base}/health/`).then((r) => r.status).catch(() => 0);
  const logText = fs.readFileSync(logFile, 'utf8');
  const result = {
    mode,
    crowd_seconds: Number(crowdSeconds.toFixed(1)),
    processes: pids.map((p) => ({ pid: p, role: p === server!.pid ? 'primary' : 'worker', baseline_rss_mb: Math.round(baseline[p]), peak_rss_mb: Math.round(peaks[p]) })),
    processes_died: pids.length - alive.length,
    out_of_memory_in_log: /heap out of memory/i.test(logText),
    health_after: health,
    outcomes,
    load_average: { before_baseline: Number(loadBefore.toFixed(1)), after_crowd: Number(os.loadavg()[0].toFixed(1)) },
    event_loop_lag_max_ms_during_crowd: after.lag,
    memory_mb: { before_crowd: before.memory_mb, after_crowd: after.memory_mb },
    server_side_during_crowd: { patches: between(before, after, 'patch'), pool_waits: between(before, after, 'pool_wait') },
    ...(waits ? { postgres_waits_during_crowd: waits } : {}),
    other_org_patches_alone: summary(alone),
    other_org_patches: summary(crowd),
    p99_under_crowd_over_alone: Number((pct(crowd.ms, 99) / Math.max(1, pct(alone.ms, 99))).toFixed(1)),
  };
  log(JSON.stringify(result, null, 2));
  if (PROFILE_DIR) await stopGently();
  stopServer();
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
  return result;
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'server.js'))) throw new Error('dist/server.js is missing: run `npm run build`');
  const results = [];
  if (!argv.includes('--embedded')) results.push(await scenario('postgres'));
  if (!argv.includes('--skip-embedded')) results.push(await scenario('embedded'));
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), results }, null, 2) + '\n');
  log(`\nwritten: ${path.relative(ROOT, OUT)}`);
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
