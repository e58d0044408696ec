// Two builds of the service side by side (issue 23): on this VM one run's requests/s moves
// by ±30% from one minute to the next, so a change is measured against its base in turns.
//
//   npm run -s build && node --import tsx bench/ab.ts --base DIR [--scenarios a,b] [--seconds N] [--rounds N]
//     [--base-env K=V,…] [--change-env K=V,…]
//
// DIR is another checkout of the service, built (`npm run -s build:service` there; e.g. a
// git worktree of main with node_modules hard-linked). Both builds serve one database
// seeded like `npm run bench -- --quick`, each in a process of its own (WORKERS=1); for each
// scenario, each round drives the base and then this checkout (the order swapped every
// other round) at 10 connections (--connections N) for N seconds (default 5) after a 2 s warm-up, and reads
// the CPU both used per request: the server's and PostgreSQL's (bench/lib/cpu.ts). Prints
// the medians over the rounds and the change; writes bench/results/ab-LABEL.json with --label.
// --base-env and --change-env add environment variables to one side (DIR may then be this
// checkout itself, to weigh a setting).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { drive, median } from './lib/load.js';
import { CpuMonitor, costPerRequest } from './lib/cpu.js';
import { databaseUrlOf, killAllStarted, startBenchServer, stopAllStarted } from './lib/processes.js';
import { QUICK_SIZE, seedPostgres } from './seed.js';
import { cellList, cellPatch, cellPost, gridList, personnelList, rowList, versionList, inboxList, notificationPost, type Scenario } from './scenarios.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const BASE_DIR = option('--base');
const LABEL = option('--label');
const SECONDS = Number(option('--seconds') ?? 5);
const ROUNDS = Number(option('--rounds') ?? 4);
const CONNECTIONS = Number(option('--connections') ?? 10);
const WANTED = (option('--scenarios') ?? '7-row-list-small,8-grid').split(',');
const envOf = (value: string | undefined): Record<string, string> =>
  Object.fromEntries((value ?? '').split(',').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const BASE_ENV = envOf(option('--base-env'));
const CHANGE_ENV = envOf(option('--change-env'));
const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `records_ab_${process.pid}`;
const dbUrl = databaseUrlOf(ADMIN_URL, DB_NAME);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-ab-'));
const log = (line: string) => console.log(line);
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

if (!BASE_DIR || !fs.existsSync(path.join(BASE_DIR, 'dist', 'server.js'))) {
  console.error('usage: node --import tsx bench/ab.ts --base DIR (a built checkout: DIR/dist/server.js) [--scenarios a,b] [--seconds N] [--rounds N]');
  process.exit(2);
}

const startServer = (label: string, root: string, env: Record<string, string>) =>
  startBenchServer({ label, root, env, databaseUrl: dbUrl, dataDir: path.join(tmp, `data-${label}`), logFile: path.join(tmp, `${label}.log`) });

interface Turn {
  rps: number;
  server_ms: number;
  postgresql_ms: number;
  non2xx: number;
}

async function main() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  await admin.end();
  // The base migrates and seeds: this checkout's migrations then apply on top of its own.
  const base = await startServer('base', path.resolve(BASE_DIR!), BASE_ENV);
  const pool = new pg.Pool({ connectionString: dbUrl, max: 4 });
  // Room for every turn's cell POSTs (each fills an empty cell of table 3, never the same twice).
  const seed = await seedPostgres(base.base, pool, { ...QUICK_SIZE, postRows: 12_000 }, log, path.join(tmp, 'data-base', 'mail')).finally(() => pool.end());
  const change = await startServer('change', ROOT, CHANGE_ENV);
  const all: Scenario[] = [
    personnelList(seed, 'list'), personnelList(seed, 'detail'), cellPatch(seed), cellPost(seed), cellList(seed), versionList(seed), rowList(seed, 'small'), rowList(seed, 'big'),
    gridList(seed), inboxList(seed), notificationPost(seed),
  ];
  const scenarios = WANTED.map((id) => {
    const found = all.find((s) => s.id === id);
    if (!found) throw new Error(`unknown scenario ${id}; known: ${all.map((s) => s.id).join(', ')}`);
    return found;
  });
  const monitor = new CpuMonitor(() => DB_NAME);
  monitor.start();
  const results: Record<string, { base: Turn[]; change: Turn[] }> = {};
  for (const scenario of scenarios) {
    const turns = { base: [] as Turn[], change: [] as Turn[] };
    for (const server of [base, change]) await drive(server.base, scenario.spec, CONNECTIONS, 2);
    for (let r = 0; r < ROUNDS; r += 1) {
      const order = r % 2 === 0 ? (['base', 'change'] as const) : (['change', 'base'] as const);
      for (const name of order) {
        const server = name === 'base' ? base : change;
        const from = monitor.mark();
        const run = await drive(server.base, scenario.spec, CONNECTIONS, SECONDS);
        const cost = costPerRequest(monitor.since(from), run.requests);
        turns[name].push({ rps: run.rps, server_ms: cost.servers, postgresql_ms: cost.postgresql, non2xx: run.non2xx + run.errors });
      }
    }
    results[scenario.id] = turns;
    const m = (list: Turn[], pick: (t: Turn) => number) => round(median(list.map(pick)));
    const line = (name: 'base' | 'change') => `${name.padEnd(6)} ${String(m(turns[name], (t) => t.rps)).padStart(8)}/s  server ${m(turns[name], (t) => t.server_ms).toFixed(2)} ms`
      + `  PostgreSQL ${m(turns[name], (t) => t.postgresql_ms).toFixed(2)} ms a request  (rps of each turn: ${turns[name].map((t) => t.rps).join(', ')}`
      + `${turns[name].some((t) => t.non2xx) ? `; non-2xx ${turns[name].reduce((n, t) => n + t.non2xx, 0)}` : ''})`;
    log(`\n${scenario.id}\n  ${line('base')}\n  ${line('change')}`);
    log(`  change: ${round((m(turns.change, (t) => t.rps) / m(turns.base, (t) => t.rps) - 1) * 100, 1)}% requests/s`);
  }
  monitor.stop();
  if (LABEL) {
    const out = path.join(ROOT, 'bench', 'results', `ab-${LABEL}.json`);
    fs.writeFileSync(out, `${JSON.stringify({ label: LABEL, date: new Date().toISOString(), base: BASE_DIR, seconds: SECONDS, rounds: ROUNDS, results }, null, 2)}\n`);
    log(`\nwritten: ${path.relative(ROOT, out)}`);
  }
}

try {
  await main();
} finally {
  await stopAllStarted().catch(() => killAllStarted());
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect().then(() => admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`)).catch((err) => console.error(err.message));
  await admin.end().catch(() => {});
  fs.rmSync(tmp, { recursive: true, force: true });
}
