// Heavy answers in a crowd (issue 21's Done-when): `npm run bench -- --heavy`.
// On PostgreSQL with WORKERS=2 (a 192 MB heap a worker, HEAP_LIMIT_MB's default), then on
// the embedded default: four lists filled to the row size bound — the grid, and the detail
// shapes of personnel, notifications and steps, 100 records of about 1 MB each (U+0001,
// written by JSON as 6 bytes) — are asked 32 times each at once with page_size=100, with 32
// verifications of a ~1 MB row of 40 versions, while another organization's client PATCHes
// cells. Measured: each server process's peak RSS (VmRSS, sampled every 50 ms), whether a
// process died, every answer complete and parsing or a 503 with Retry-After, and the other
// organization's PATCH latencies (p50, p99). Writes bench/results/heavy.json.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './lib/processes.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const PARALLEL = 32;
const RECORDS = 100;
const VERSIONS = 40;
const OUT = path.join(ROOT, 'bench', 'results', 'heavy.json');
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
    MAIL_PER_USER_PER_HOUR: '100000', ...(mode === 'postgres' ? { DATABASE_URL: databaseUrl, WORKERS: '2' } : {}),
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
  server = spawn(process.execPath, [path.join(ROOT, 'dist', 'server.js')], { env: { ...env, PORT: String(port) }, detached: true, stdio: ['ignore', out, out] });
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

  const pids = processesOf(server.pid!);
  const baseline = Object.fromEntries(pids.map((p) => [p, rssMb(p) ?? 0]));
  const peaks: Record<number, number> = { ...baseline };
  const sampler = setInterval(() => {
    for (const p of processesOf(server!.pid!)) {
      const rss = rssMb(p);
      if (rss !== null) peaks[p] = Math.max(peaks[p] ?? 0, rss);
    }
  }, 50);
  // Another organization's cell PATCHes, 4 at a time, for as long as the crowd lasts.
  const patchMs: number[] = [];
  let patchErrors = 0;
  let crowdDone = false;
  const patcher = Promise.all(Array.from({ length: 4 }, async (_, w) => {
    for (let n = 0; !crowdDone; n += 1) {
      const t = performance.now();
      const res = await call(o, 'PATCH', `/tables/cell/detail/${otherRows[(w + n * 4) % otherRows.length].sid}/`, { data: `v${n}` }).catch(() => null);
      patchMs.push(performance.now() - t);
      if (!res || res.status !== 200) patchErrors += 1;
    }
  }));
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
  crowdDone = true;
  await patcher;
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
    other_org_patches: { count: patchMs.length, errors: patchErrors, p50_ms: Math.round(pct(patchMs, 50)), p99_ms: Math.round(pct(patchMs, 99)) },
  };
  log(JSON.stringify(result, null, 2));
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
