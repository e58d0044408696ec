// Files (issue 25): upload and download throughput on the embedded default (PGlite, the
// folder store) against a plain `cp` of the same files on this disk — the limit — at 1 and
// 10 parallel transfers; then one 2 GiB file up and down with the server's RSS sampled
// (it must stay under 250 MB) and its SHA-256 checked; then an upload to a row's file cell
// killed halfway (SIGKILL to the server): after a restart the row has no new version and no
// file, and the GC sweeps the temporary object the killed write left. `npm run bench -- --files`
// (`--quick`: 64 MiB files, no 2 GiB run; `--no-big`: leave the 2 GiB run out; `--steps=big,kill`:
// only those of throughput, big, kill; `--postgres`: the server on PostgreSQL, BENCH_DATABASE_URL,
// a database of its own). Writes bench/results/files.json (files-postgres.json), keeping the
// figures of steps not run. Stops what it started and deletes its files whatever happens.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import pg from 'pg';
import { freePort, statusKb } from './lib/processes.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const POSTGRES = argv.includes('--postgres');
const STEPS = (argv.find((a) => a.startsWith('--steps='))?.slice('--steps='.length) ?? 'throughput,big,kill').split(',');
const BIG = !QUICK && !argv.includes('--no-big') && STEPS.includes('big');
const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `records_bench_files_${process.pid}`;
const MiB = 1024 * 1024;
const FILE_BYTES = (QUICK ? 64 : 256) * MiB;
const PARALLEL = 10;
const PARALLEL_BYTES = (QUICK ? 16 : 64) * MiB;
const BIG_BYTES = 2 * 1024 * MiB;
const KILL_BYTES = (QUICK ? 128 : 1024) * MiB;
const RSS_LIMIT_MB = 250;
const OUT = path.join(ROOT, 'bench', 'results', `files${POSTGRES ? '-postgres' : ''}${QUICK ? '-quick' : ''}.json`);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-bench-files-'));
const log = (line: string) => console.log(line);
let server: ChildProcess | null = null;

function killServer() {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

function cleanUp() {
  killServer();
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));


/** A file of random bytes (written 8 MiB at a time). */
function makeFile(file: string, bytes: number): string {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(8 * MiB);
  for (let written = 0; written < bytes; written += chunk.length) {
    randomFillSync(chunk);
    fs.writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
  }
  fs.closeSync(fd);
  return file;
}

/** The server's resident memory (all its processes), sampled every 100 ms while `work` runs: the peak, in MB. */
async function sampled<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, (statusKb(server!.pid!, 'VmRSS') ?? 0) / 1024);
    } catch {
      // between samples
    }
  };
  const timer = setInterval(sample, 100);
  try {
    const value = await work();
    sample();
    return { value, peakMb: Math.round(peak) };
  } finally {
    clearInterval(timer);
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const run = (program: string, args: string[]) => new Promise<void>((resolve, reject) =>
  execFile(program, args, (err) => (err ? reject(err) : resolve())));

let base = '';
let key = '';
let org = '';

/** Streams `file` as a multipart upload; resolves with the descriptor. */
function upload(file: string, name: string): Promise<{ sid: string; sha256: string; size: number }> {
  const boundary = `----bench${Date.now().toString(16)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = fs.statSync(file).size;
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/files/file/list/organization/${org}/detail/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => { text += c; }).on('end', () => {
        if (res.statusCode !== 201) reject(new Error(`upload of ${name}: ${res.statusCode} ${text}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('error', reject);
    req.write(head);
    const body = fs.createReadStream(file, { highWaterMark: MiB });
    body.pipe(req, { end: false });
    body.on('end', () => req.end(tail));
    body.on('error', reject);
  });
}

/** Downloads a file, hashing it on the way; resolves with its SHA-256 and size. */
function download(sid: string): Promise<{ sha256: string; size: number }> {
  return new Promise((resolve, reject) => {
    http.get(`${base}/files/file/download/${sid}/`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`download ${sid}: ${res.statusCode}`));
      const hash = createHash('sha256');
      let size = 0;
      res.on('data', (c: Buffer) => { hash.update(c); size += c.length; });
      res.on('end', () => resolve({ sha256: hash.digest('hex'), size }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

const mbps = (bytes: number, seconds: number) => Math.round((bytes / MiB / seconds) * 10) / 10;

/** Starts the server (one process) on the bench's data and waits for /health/. */
async function startServer(env: NodeJS.ProcessEnv) {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, [path.join(ROOT, 'dist', 'server.js')], { env: { ...env, PORT: String(port) }, detached: true, stdio: 'inherit' });
  for (let i = 0; ; i += 1) {
    if (await fetch(`${base}/health/`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main() {
  log(`Files benchmark (${QUICK ? 'quick' : 'full'}; ${STEPS.join(', ')}): ${POSTGRES ? 'PostgreSQL' : 'the embedded default (PGlite)'}, the folder store in ${tmp}`);
  const dataDir = path.join(tmp, 'data');
  const env: NodeJS.ProcessEnv = {
    ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', WORKERS: '1', WEB_DIR: path.join(tmp, 'no-web'),
    FILE_MAX_BYTES: String(3 * 1024 * MiB), FILES_QUOTA_BYTES: String(1024 ** 4), REQUEST_TIMEOUT_SECONDS: '300',
  };
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  if (POSTGRES) {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${DB_NAME}`);
    await admin.end();
    const url = new URL(ADMIN_URL);
    url.pathname = `/${DB_NAME}`;
    env.DATABASE_URL = url.toString();
  }
  const cli = (args: string[], input?: string) => execFileSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), ...args], { env, input, encoding: 'utf8' });
  cli(['create-user', '--email', 'bench@files.test', '--first-name', 'Bench', '--last-name', 'Files'], 'bench files password 1\n');
  org = JSON.parse(cli(['create-organization', '--name', 'Bench', '--admin-email', 'bench@files.test'])).sid;
  key = JSON.parse(cli(['create-api-key', '--email', 'bench@files.test', '--name', 'bench'])).key;
  await startServer(env);

  const kept = fs.existsSync(OUT) ? JSON.parse(fs.readFileSync(OUT, 'utf8')) as Record<string, unknown> : {};
  const results: Record<string, unknown> = { ...kept, machine: { cpus: os.cpus().length, node: process.version }, database: POSTGRES ? 'postgresql' : 'embedded' };
  if (STEPS.includes('throughput')) await throughput(results);
  if (BIG) await bigFile(results);
  if (STEPS.includes('kill')) await killedUpload(results, env);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
  log(`written to ${path.relative(process.cwd(), OUT)}`);
  const big = results.big as { sha256_matches: boolean; rss_under_limit: boolean } | undefined;
  const kill = results.kill as { leaves_nothing: boolean } | undefined;
  if ((BIG && big && (!big.sha256_matches || !big.rss_under_limit)) || (kill && !kill.leaves_nothing)) process.exitCode = 1;
}

/** 1 and 10 transfers at once against cp of the same files. */
async function throughput(results: Record<string, unknown>) {
  results.file_mib = FILE_BYTES / MiB;
  results.parallel_file_mib = PARALLEL_BYTES / MiB;
  // 1 transfer.
  const one = makeFile(path.join(tmp, 'one.bin'), FILE_BYTES);
  const cpOne = await timed(() => run('cp', [one, path.join(tmp, 'one.copy')]).then(() => run('sync', [path.join(tmp, 'one.copy')])));
  const catOne = await timed(() => run('cp', [one, '/dev/null']));
  const up = await sampled(() => timed(() => upload(one, 'one.bin')));
  const [{ sid: oneSid }] = (await (await fetch(`${base}/files/file/list/organization/${org}/name/`, { headers: { authorization: `Bearer ${key}` } })).json()).results;
  const down = await sampled(() => timed(() => download(oneSid)));
  results.one = {
    cp_mib_s: mbps(FILE_BYTES, cpOne), upload_mib_s: mbps(FILE_BYTES, up.value), upload_of_cp: Math.round((cpOne / up.value) * 100) / 100,
    read_mib_s: mbps(FILE_BYTES, catOne), download_mib_s: mbps(FILE_BYTES, down.value), download_of_read: Math.round((catOne / down.value) * 100) / 100,
    peak_rss_mb: Math.max(up.peakMb, down.peakMb),
  };
  log(`1 transfer of ${FILE_BYTES / MiB} MiB: ${JSON.stringify(results.one)}`);

  // 10 at once, each its own bytes.
  const many = Array.from({ length: PARALLEL }, (_, i) => makeFile(path.join(tmp, `many-${i}.bin`), PARALLEL_BYTES));
  const total = PARALLEL * PARALLEL_BYTES;
  const cpMany = await timed(() => Promise.all(many.map((f) => run('cp', [f, `${f}.copy`]).then(() => run('sync', [`${f}.copy`])))));
  const catMany = await timed(() => Promise.all(many.map((f) => run('cp', [f, '/dev/null']))));
  let sids: string[] = [];
  const upMany = await sampled(() => timed(async () => { sids = (await Promise.all(many.map((f, i) => upload(f, `many-${i}.bin`)))).map((d) => d.sid); }));
  const downMany = await sampled(() => timed(() => Promise.all(sids.map((s) => download(s)))));
  results.ten = {
    cp_mib_s: mbps(total, cpMany), upload_mib_s: mbps(total, upMany.value), upload_of_cp: Math.round((cpMany / upMany.value) * 100) / 100,
    read_mib_s: mbps(total, catMany), download_mib_s: mbps(total, downMany.value), download_of_read: Math.round((catMany / downMany.value) * 100) / 100,
    peak_rss_mb: Math.max(upMany.peakMb, downMany.peakMb),
  };
  log(`${PARALLEL} transfers of ${PARALLEL_BYTES / MiB} MiB at once: ${JSON.stringify(results.ten)}`);
  for (const f of [one, ...many]) fs.rmSync(f, { force: true });
}

/** One 2 GiB file up and down, the server's RSS sampled, its SHA-256 checked. */
async function bigFile(results: Record<string, unknown>) {
  {
    const big = makeFile(path.join(tmp, 'big.bin'), BIG_BYTES);
    const expected = createHash('sha256');
    await pipeline(fs.createReadStream(big, { highWaterMark: 8 * MiB }), new Writable({ write(c, _e, done) { expected.update(c); done(); } }));
    const hash = expected.digest('hex');
    let descriptor = { sid: '', sha256: '', size: 0 };
    const bigUp = await sampled(() => timed(async () => { descriptor = await upload(big, 'big.bin'); }));
    fs.rmSync(big, { force: true });
    let got = { sha256: '', size: 0 };
    const bigDown = await sampled(() => timed(async () => { got = await download(descriptor.sid); }));
    results.big = {
      bytes: BIG_BYTES, upload_seconds: Math.round(bigUp.value * 10) / 10, upload_mib_s: mbps(BIG_BYTES, bigUp.value), upload_peak_rss_mb: bigUp.peakMb,
      download_seconds: Math.round(bigDown.value * 10) / 10, download_mib_s: mbps(BIG_BYTES, bigDown.value), download_peak_rss_mb: bigDown.peakMb,
      sha256_matches: descriptor.sha256 === hash && got.sha256 === hash && got.size === BIG_BYTES,
      rss_under_limit: Math.max(bigUp.peakMb, bigDown.peakMb) < RSS_LIMIT_MB,
    };
    log(`2 GiB up and down: ${JSON.stringify(results.big)}`);
  }
}

/** The API as the bench's key, JSON in and out. */
async function api(method: string, url: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${url}`, {
    method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** The folder store's objects and temporary files (count and bytes of each). */
function storeContents(filesDir: string) {
  const out = { objects: 0, object_bytes: 0, temporary: 0, temporary_bytes: 0 };
  const walk = (dir: string) => {
    for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.startsWith('.upload-')) { out.temporary += 1; out.temporary_bytes += fs.statSync(full).size; }
      else { out.objects += 1; out.object_bytes += fs.statSync(full).size; }
    }
  };
  walk(path.join(filesDir, 'objects'));
  return out;
}

/**
 * An upload to a row's file cell (a row of the files table made as labii-sdk makes it), the
 * server killed (SIGKILL) once half the bytes are sent; then a restart with a short GC grace:
 * the row has no new version and no file, no object was added, and the temporary object the
 * killed write left is swept by the GC.
 */
async function killedUpload(results: Record<string, unknown>, env: NodeJS.ProcessEnv) {
  const filesDir = path.join(env.DATA_DIR!, 'files');
  const me = (await api('GET', `/organizations/personnel/list/organization/${org}/name/`)).results[0].sid;
  const project = await api('POST', `/projects/project/list/organization/${org}/detail/`, { name: 'Killed uploads' });
  await api('POST', `/projects/member/list/project/${project.sid}/detail/`, { personnel: me, permission: 'edit' });
  const table = (await api('GET', `/tables/table/list/organization/${org}/detail/?name_system=file`)).results[0];
  const row = await api('POST', `/tables/row/list/organization/${org}/detail/?table__sid=${table.sid}&presigned_post=true`, { name: 'killed.bin', projects: [{ sid: project.sid }] });
  const before = storeContents(filesDir);
  const boundary = `----bench${Date.now().toString(16)}`;
  const fields = Object.entries(row.presigned_post.fields as Record<string, string>)
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('');
  const head = Buffer.from(`${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="killed.bin"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let sent = 0;
  const outcome = await new Promise<string>((resolve) => {
    const req = http.request(row.presigned_post.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + KILL_BYTES + tail.length },
    }, (res) => { res.resume(); resolve(`answered ${res.statusCode}`); });
    req.on('error', (err) => resolve(`the connection broke (${(err as NodeJS.ErrnoException).code ?? err.message})`));
    req.write(head);
    const chunk = Buffer.alloc(MiB);
    const more = () => {
      while (sent < KILL_BYTES) {
        if (sent >= KILL_BYTES / 2 && server) {
          killServer();
          server = null;
        }
        randomFillSync(chunk);
        sent += chunk.length;
        if (!req.write(chunk)) { req.once('drain', more); return; }
      }
      req.end(tail);
    };
    more();
  });
  const afterKill = storeContents(filesDir);
  log(`killed at ${Math.round(sent / MiB)} MiB of ${KILL_BYTES / MiB}: ${outcome}; the store: ${JSON.stringify(afterKill)}`);
  await startServer({ ...env, FILES_GC_SECONDS: '1', FILES_GC_GRACE_SECONDS: '2' });
  const after = await api('GET', `/tables/row/detail/${row.sid}/`);
  const rowFiles = await api('GET', `/files/file/list/row/${row.sid}/name/`);
  const swept = process.hrtime.bigint();
  let store = storeContents(filesDir);
  for (let i = 0; i < 300 && store.temporary > 0; i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    store = storeContents(filesDir);
  }
  results.kill = {
    bytes: KILL_BYTES, killed_after_bytes: sent, client_saw: outcome,
    row_version_before: row.version, row_version_after: after.version, row_files_after: rowFiles.count,
    objects_before: before.objects, objects_after: store.objects,
    temporary_after_kill: afterKill.temporary, temporary_bytes_after_kill: afterKill.temporary_bytes,
    temporary_after_gc: store.temporary, gc_seconds_after_restart: Math.round(Number(process.hrtime.bigint() - swept) / 1e8) / 10,
    leaves_nothing: after.version === row.version && rowFiles.count === 0 && store.objects === before.objects && store.temporary === 0,
  };
  log(`killed upload: ${JSON.stringify(results.kill)}`);
}

async function dropDatabase() {
  if (!POSTGRES) return;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`).catch(() => {});
  await admin.end();
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
}).finally(async () => {
  killServer();
  await dropDatabase().catch((err) => console.error('dropping the database:', err));
  cleanUp();
});
