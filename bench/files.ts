// Files (issue 25): upload and download throughput on the embedded default (PGlite, the
// folder store) against a plain `cp` of the same files on this disk — the limit — at 1 and
// 10 parallel transfers; then one 2 GiB file up and down with the server's RSS sampled
// (it must stay under 250 MB) and its SHA-256 checked. `npm run bench -- --files`
// (`--quick`: 64 MiB files, no 2 GiB run; `--no-big`: leave the 2 GiB run out). Writes
// bench/results/files.json. Stops what it started and deletes its files whatever happens.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { freePort, statusKb } from './lib/processes.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const BIG = !QUICK && !argv.includes('--no-big');
const MiB = 1024 * 1024;
const FILE_BYTES = (QUICK ? 64 : 256) * MiB;
const PARALLEL = 10;
const PARALLEL_BYTES = (QUICK ? 16 : 64) * MiB;
const BIG_BYTES = 2 * 1024 * MiB;
const RSS_LIMIT_MB = 250;
const OUT = path.join(ROOT, 'bench', 'results', QUICK ? 'files-quick.json' : 'files.json');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-bench-files-'));
const log = (line: string) => console.log(line);
let server: ChildProcess | null = null;

function cleanUp() {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
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

async function main() {
  log(`Files benchmark (${QUICK ? 'quick' : 'full'}): the embedded default (PGlite, folder store) in ${tmp}`);
  const dataDir = path.join(tmp, 'data');
  const env = {
    ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', WORKERS: '1', WEB_DIR: path.join(tmp, 'no-web'),
    FILE_MAX_BYTES: String(3 * 1024 * MiB), FILES_QUOTA_BYTES: String(1024 ** 4), REQUEST_TIMEOUT_SECONDS: '300',
  };
  delete (env as Record<string, string | undefined>).DATABASE_URL;
  const cli = (args: string[], input?: string) => execFileSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), ...args], { env, input, encoding: 'utf8' });
  cli(['create-user', '--email', 'bench@files.test', '--first-name', 'Bench', '--last-name', 'Files'], 'bench files password 1\n');
  org = JSON.parse(cli(['create-organization', '--name', 'Bench', '--admin-email', 'bench@files.test'])).sid;
  key = JSON.parse(cli(['create-api-key', '--email', 'bench@files.test', '--name', 'bench'])).key;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, [path.join(ROOT, 'dist', 'server.js')], { env: { ...env, PORT: String(port) }, detached: true, stdio: 'inherit' });
  for (let i = 0; ; i += 1) {
    if (await fetch(`${base}/health/`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }

  const results: Record<string, unknown> = { machine: { cpus: os.cpus().length, node: process.version }, file_mib: FILE_BYTES / MiB, parallel_file_mib: PARALLEL_BYTES / MiB };
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

  if (BIG) {
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
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
  log(`written to ${path.relative(process.cwd(), OUT)}`);
  const big = results.big as { sha256_matches: boolean; rss_under_limit: boolean } | undefined;
  if (big && (!big.sha256_matches || !big.rss_under_limit)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
}).finally(() => {
  cleanUp();
});
