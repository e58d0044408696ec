// Spreadsheets in and out (issue 26) on the embedded default (PGlite): a CSV of N rows × 10
// columns imported through the API (every line checked, then written in one transaction:
// rows, cells, versions with their hashes, the credit debit) beside the limit — the same
// rows, cells and versions written set-based by one INSERT … SELECT each (PGlite's stand-in
// for COPY: no per-row round trip, no hashing) into the same tables — then the table
// exported as CSV and NDJSON, the server's RSS sampled throughout. `npm run bench -- --import`
// or `-- --export` (both run the whole step: the export needs the import's rows);
// `--rows N` (default 10,000; the scale is --rows 1000000); `--no-export` skips the
// exports, `--no-limit` the COPY beside the import. `--postgres`: the service on a fresh PostgreSQL database
// (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; dropped at the
// end), its limit a real COPY (psql's \copy) of the same rows, cells and versions into the
// same tables; the server's RSS is then the service's alone. Writes
// bench/results/transfer.json (transfer-postgres.json). Stops what it started, deletes its files.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { START_NODE_FLAGS, freePort, statusKb } from './lib/processes.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const ROWS = argv.includes('--rows') ? Number(argv[argv.indexOf('--rows') + 1]) : 10_000;
const COLUMNS = 10;
/** The first column's widget's price: the import pays it for every line. */
const PRICE = '0.01';
const POSTGRES = argv.includes('--postgres');
/** `--no-export`: the import and its limit only (the exports of a million rows take as long again). */
const NO_EXPORT = argv.includes('--no-export');
/** `--no-limit`: the import and the exports only (the memory figures), not the COPY beside them. */
const NO_LIMIT = argv.includes('--no-limit');
/** `--profile DIR`: the server's CPU profile (written when it stops, after the import and exports). */
const PROFILE = argv.includes('--profile') ? path.resolve(argv[argv.indexOf('--profile') + 1]) : null;
const OUT = path.join(ROOT, 'bench', 'results', POSTGRES ? 'transfer-postgres.json' : 'transfer.json');
const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `records_bench_transfer_${process.pid}`;
let databaseUrl: string | null = null;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-bench-transfer-'));
const log = (line: string) => console.log(line);
let server: ChildProcess | null = null;

function stopServer() {
  if (server?.pid && PROFILE) {
    // A graceful stop, so that the profile is written.
    const pid = server.pid;
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 300; i += 1) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      execFileSync('sleep', ['0.1']);
    }
  }
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
  if (databaseUrl && process.env.TRANSFER_KEEP_DATABASE) console.log(`kept database ${DB_NAME}`);
  else if (databaseUrl) {
    try {
      execFileSync('psql', [ADMIN_URL, '-q', '-c', `DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`], { stdio: 'ignore' });
    } catch {
      // dropped already, or the server is gone
    }
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));


/** The server's peak RSS (MB, sampled every 100 ms) while `work` runs, and the seconds it took. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; peakMb: number }> {
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, (statusKb(server!.pid!, 'VmRSS') ?? 0) / 1024);
    } catch {
      // between samples
    }
  };
  const timer = setInterval(sample, 100);
  const start = process.hrtime.bigint();
  try {
    const value = await work();
    sample();
    return { value, seconds: Number(process.hrtime.bigint() - start) / 1e9, peakMb: Math.round(peak) };
  } finally {
    clearInterval(timer);
  }
}

/** The CSV to import, written line by line: name, description and 10 columns of ~20 characters. */
function makeCsv(file: string): number {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, `name,description,${Array.from({ length: COLUMNS }, (_, i) => `c${i}`).join(',')}\n`);
  let buffer = '';
  for (let r = 0; r < ROWS; r += 1) {
    buffer += `row ${r},imported,${Array.from({ length: COLUMNS }, (_, i) => `value ${r}-${i} abcdef`).join(',')}\n`;
    if (buffer.length > 1 << 20) { fs.writeSync(fd, buffer); buffer = ''; }
  }
  fs.writeSync(fd, buffer);
  fs.closeSync(fd);
  return fs.statSync(file).size;
}

/** Reads a streamed answer to its end, counting bytes (never holding it). */
async function drain(res: Response): Promise<number> {
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return bytes;
}

async function main() {
  log(`Transfer benchmark: ${ROWS} rows × ${COLUMNS} columns on ${POSTGRES ? 'PostgreSQL' : 'the embedded default (PGlite)'} in ${tmp}`);
  const dataDir = path.join(tmp, 'data');
  const env: Record<string, string | undefined> = {
    ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', WORKERS: '1', WEB_DIR: path.join(tmp, 'no-web'),
    FILE_MAX_BYTES: String(64 * 1024 ** 3), REQUEST_TIMEOUT_SECONDS: '3600', STATEMENT_TIMEOUT_SECONDS: '3600', INITIAL_CREDITS: '100000000.00',
  };
  delete env.DATABASE_URL;
  if (POSTGRES) {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${DB_NAME}`);
    await admin.end();
    const url = new URL(ADMIN_URL);
    url.pathname = `/${DB_NAME}`;
    databaseUrl = url.toString();
    env.DATABASE_URL = databaseUrl;
  }
  const cli = (args: string[], input?: string) => execFileSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), ...args], { env, input, encoding: 'utf8' });
  cli(['create-user', '--email', 'bench@transfer.test', '--first-name', 'Bench', '--last-name', 'Transfer'], 'bench transfer password 1\n');
  const org = JSON.parse(cli(['create-organization', '--name', 'Bench', '--admin-email', 'bench@transfer.test'])).sid;
  const key = JSON.parse(cli(['create-api-key', '--email', 'bench@transfer.test', '--name', 'bench'])).key;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Started as `npm start` starts it (its node flags), as run.ts does.
  server = spawn(process.execPath, [...START_NODE_FLAGS, ...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []), path.join(ROOT, 'dist', 'server.js')], { env: { ...env, PORT: String(port) }, detached: true, stdio: 'inherit' });
  for (let i = 0; ; i += 1) {
    if (await fetch(`${base}/health/`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = async (url: string, body: unknown) => {
    const res = await fetch(`${base}${url}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const me = (await (await fetch(`${base}/organizations/personnel/list/organization/${org}/name/`, { headers })).json()).results[0];
  const project = await post(`/projects/project/list/organization/${org}/detail/`, { name: 'Bench project' });
  await post(`/projects/member/list/project/${project.sid}/detail/`, { personnel: me.sid, permission: 'admin' });
  const table = await post(`/tables/table/list/organization/${org}/detail/`, { name: 'Bench table' });
  // The first column's widget is priced (a cent a cell): the import debits its credits as it writes, batch by batch.
  const priced = await post(`/widgets/widget/list/organization/${org}/detail/`, { name: 'Priced text', description: 'a cent a cell', price: PRICE });
  for (let i = 0; i < COLUMNS; i += 1) {
    await post(`/tables/column/list/organization/${org}/detail/?table__sid=${table.sid}`, { name: `c${i}`, widget: i === 0 ? priced.sid : 'builtinWidgetTxt', order: i });
  }
  const balance = async () => (await (await fetch(`${base}/organizations/organization/detail/${org}/`, { headers })).json()).credits.replace(/[^0-9.-]/g, '') as string;
  const csvFile = path.join(tmp, 'rows.csv');
  const csvBytes = makeCsv(csvFile);
  const results: Record<string, unknown> = { machine: { cpus: os.cpus().length, node: process.version }, rows: ROWS, columns: COLUMNS, csv_mib: Math.round(csvBytes / 1024 / 102.4) / 10 };

  const creditsBefore = await balance();
  const loadBefore = loadAverage();
  // The import's progress, as a client sees it (GET …/import/progress/?key=), logged every 30 s with the server's RSS.
  const importKey = `bench-import-${process.pid}`;
  const progressLog: { seconds: number; phase: string; rows_done: number; rows_total: number | null; rss_mb: number }[] = [];
  const started = Date.now();
  const progressTimer = setInterval(() => {
    void fetch(`${base}/tables/row/import/progress/?key=${importKey}`, { headers }).then(async (res) => {
      if (res.status !== 200) return;
      const p = await res.json() as { phase: string; rows_done: number; rows_total: number | null };
      const rssMb = Math.round((statusKb(server!.pid!, 'VmRSS') ?? 0) / 1024);
      progressLog.push({ seconds: Math.round((Date.now() - started) / 1000), ...p, rss_mb: rssMb });
      log(`  progress at ${Math.round((Date.now() - started) / 1000)} s: ${p.phase} ${p.rows_done}/${p.rows_total ?? '?'}, RSS ${rssMb} MB`);
    }).catch(() => undefined);
  }, 30_000);
  const imported = await measured(async () => {
    // node:http rather than fetch: the answer comes when the import is done, after fetch's 300 s headers timeout.
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(`${base}/tables/row/import/table/${table.sid}/?project__sid=${project.sid}`, {
        method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv', 'idempotency-key': importKey },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => { text += c; }).on('end', () => resolve({ status: res.statusCode ?? 0, body: text })).on('error', reject);
      });
      request.on('error', reject);
      fs.createReadStream(csvFile).pipe(request);
    });
    if (status !== 200) throw new Error(`import: ${status} ${body.slice(0, 500)}`);
    return JSON.parse(body);
  });
  clearInterval(progressTimer);
  if (imported.value.created !== ROWS) throw new Error(`imported ${imported.value.created} rows, not ${ROWS}`);
  const paid = Math.round((Number(creditsBefore) - Number(await balance())) * 100);
  if (paid !== ROWS * Math.round(Number(PRICE) * 100)) throw new Error(`the import debited ${paid} cents, not ${ROWS} × ${PRICE}`);
  results.import = {
    seconds: round(imported.seconds), rows_per_s: Math.round(ROWS / imported.seconds), peak_rss_mb: imported.peakMb,
    debited: (paid / 100).toFixed(2), load_average: { before: loadBefore, after: loadAverage() }, progress: progressLog,
  };
  log(`import: ${ROWS} rows in ${round(imported.seconds)} s (${Math.round(ROWS / imported.seconds)} rows/s), peak RSS ${imported.peakMb} MB, `
    + `debited ${(paid / 100).toFixed(2)}; load average ${loadBefore.join(' ')} before, ${loadAverage().join(' ')} after`);

  for (const format of NO_EXPORT ? [] : ['csv', 'ndjson'] as const) {
    const exported = await measured(async () => drain(await fetch(`${base}/tables/row/export/table/${table.sid}/?format=${format}`, { headers })));
    results[`export_${format}`] = { seconds: round(exported.seconds), rows_per_s: Math.round(ROWS / exported.seconds), mib: Math.round(exported.value / 1024 / 102.4) / 10, peak_rss_mb: exported.peakMb };
    log(`export ${format}: ${round(exported.seconds)} s (${Math.round(ROWS / exported.seconds)} rows/s, ${Math.round(exported.value / 1024 / 1024)} MiB), peak RSS ${exported.peakMb} MB`);
  }
  stopServer();
  await new Promise((r) => setTimeout(r, 1000));

  // The limit: the same rows, cells and versions written in the same database, set-based
  // (PGlite) or by COPY (PostgreSQL).
  if (!NO_LIMIT) {
    const limitLoad = loadAverage();
    const limit = POSTGRES ? copyLimit(org, table.sid, project.sid) : await setBasedLimit(dataDir, org, table.sid, project.sid);
    results[POSTGRES ? 'copy' : 'set_based_insert'] = { seconds: round(limit), rows_per_s: Math.round(ROWS / limit), load_average: { before: limitLoad, after: loadAverage() } };
    (results.import as Record<string, number>).of_limit = Math.round((limit / imported.seconds) * 100) / 100;
    log(`the limit (${POSTGRES ? 'COPY' : 'set-based INSERT … SELECT'} of the same rows, cells and versions): ${round(limit)} s (${Math.round(ROWS / limit)} rows/s); the import runs at ${Math.round((limit / imported.seconds) * 100)}% of it`);
  }
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(results, null, 2) + '\n');
  log(`written to ${path.relative(process.cwd(), OUT)}`);
}

const round = (n: number) => Math.round(n * 100) / 100;
/** The machine's load average (1, 5, 15 minutes): the machine is shared, a figure is read beside it. */
const loadAverage = () => os.loadavg().map((l) => round(l));

/** PGlite has no COPY from a client: one INSERT … SELECT each for the rows, cells and versions, in one transaction; seconds. */
async function setBasedLimit(dataDir: string, org: string, tableSid: string, projectSid: string): Promise<number> {
  const { openDatabase } = await import(path.join(ROOT, 'dist', 'db', 'client.js'));
  const database = await openDatabase({ databaseUrl: null, dataDir });
  const db = database.db;
  const { sql } = await import('drizzle-orm');
  const start = process.hrtime.bigint();
  await db.transaction(async (tx: any) => {
    await tx.execute(sql`INSERT INTO record_rows (sid, organization_sid, table_sid, project_sid, name, description, version, last_hash)
      SELECT 'b' || lpad(g::text, 15, '0'), ${org}, ${tableSid}, ${projectSid}, 'row ' || g, 'imported', 1, md5(g::text) FROM generate_series(1, ${ROWS}) g`);
    await tx.execute(sql`INSERT INTO cells (sid, organization_sid, row_sid, column_sid, widget_sid, data)
      SELECT 'c' || lpad((g * 16 + c.n)::text, 15, '0'), ${org}, 'b' || lpad(g::text, 15, '0'), c.sid, 'builtinWidgetTxt', 'value ' || g || '-' || c.n || ' abcdef'
        FROM generate_series(1, ${ROWS}) g, (SELECT sid, "order" AS n FROM record_columns WHERE table_sid = ${tableSid}) c`);
    await tx.execute(sql`INSERT INTO versions (sid, organization_sid, row_sid, version, hash, previous_hash, data, updated_by, date_created, date_updated)
      SELECT 'v' || lpad(g::text, 15, '0'), ${org}, 'b' || lpad(g::text, 15, '0'), 1, md5(g::text), '',
             jsonb_build_object('name', 'row ' || g, 'description', 'imported', 'is_locked', false, 'is_archived', false,
               'cells', (SELECT jsonb_object_agg(sid, 'value ' || g || '-' || "order" || ' abcdef') FROM record_columns WHERE table_sid = ${tableSid})),
             'bench', now(), now() FROM generate_series(1, ${ROWS}) g`);
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await database.close();
  return seconds;
}

/** COPY (psql's \\copy, client-side files) of the same rows, cells and versions into the same tables, in one transaction; seconds (the files' writing not counted). */
function copyLimit(org: string, tableSid: string, projectSid: string): number {
  const columns = JSON.parse(execFileSync('psql', [databaseUrl!, '-At', '-c',
    `SELECT json_agg(sid ORDER BY "order") FROM record_columns WHERE table_sid = '${tableSid}'`], { encoding: 'utf8' })) as string[];
  // The same columns as the import's rows and cells: their creator and the rows' uids.
  const user = execFileSync('psql', [databaseUrl!, '-At', '-c', "SELECT sid FROM users WHERE email = 'bench@transfer.test'"], { encoding: 'utf8' }).trim();
  const files = { rows: path.join(tmp, 'rows.copy'), cells: path.join(tmp, 'cells.copy'), versions: path.join(tmp, 'versions.copy') };
  const out = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, fs.openSync(f, 'w')])) as Record<keyof typeof files, number>;
  const buffers = { rows: '', cells: '', versions: '' };
  const flush = (force: boolean) => {
    for (const k of Object.keys(buffers) as (keyof typeof buffers)[]) {
      if (force || buffers[k].length > 1 << 20) { fs.writeSync(out[k], buffers[k]); buffers[k] = ''; }
    }
  };
  const stamp = new Date().toISOString();
  for (let g = 1; g <= ROWS; g += 1) {
    const row = `b${String(g).padStart(15, '0')}`;
    const data: Record<string, string> = {};
    columns.forEach((column, n) => {
      data[column] = `value ${g}-${n} abcdef`;
      buffers.cells += `c${String(g * 16 + n).padStart(15, '0')}\t${org}\t${row}\t${column}\tbuiltinWidgetTxt\t${data[column]}\t${user}\t${user}\n`;
    });
    const hash = createHash('sha256').update(row).digest('hex');
    buffers.rows += `${row}\t${org}\t${tableSid}\t${projectSid}\trow ${g}\timported\t1\t${hash}\tBENCH-${String(g).padStart(7, '0')}\t${user}\t${user}\n`;
    const version = JSON.stringify({ name: `row ${g}`, description: 'imported', is_locked: false, is_archived: false, cells: data }).replace(/\\/g, '\\\\');
    buffers.versions += `v${String(g).padStart(15, '0')}\t${org}\t${row}\t1\t${hash}\t\t${version}\t${user}\t${stamp}\t${stamp}\n`;
    flush(false);
  }
  flush(true);
  for (const fd of Object.values(out)) fs.closeSync(fd);
  const script = path.join(tmp, 'copy.sql');
  fs.writeFileSync(script, [
    'BEGIN;',
    `\\copy record_rows (sid, organization_sid, table_sid, project_sid, name, description, version, last_hash, uid, created_by, updated_by) FROM '${files.rows}'`,
    `\\copy cells (sid, organization_sid, row_sid, column_sid, widget_sid, data, created_by, updated_by) FROM '${files.cells}'`,
    `\\copy versions (sid, organization_sid, row_sid, version, hash, previous_hash, data, updated_by, date_created, date_updated) FROM '${files.versions}'`,
    'COMMIT;',
  ].join('\n') + '\n');
  const start = process.hrtime.bigint();
  execFileSync('psql', [databaseUrl!, '-q', '-v', 'ON_ERROR_STOP=1', '-f', script], { stdio: ['ignore', 'ignore', 'inherit'] });
  return Number(process.hrtime.bigint() - start) / 1e9;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
