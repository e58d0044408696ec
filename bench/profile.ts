// Where the CPU of one request goes (issue 15), in Node and in PostgreSQL.
//
//   npm run -s build && node --import tsx bench/profile.ts [--label NAME] [--seconds N] [--scenarios a,b] [--connections N] [--no-trips]
//
// On a database of its own, seeded like `npm run bench -- --quick`, for each scenario:
// 1. Node: one server process (WORKERS=1) runs with --cpu-prof while autocannon drives the
//    scenario at 10 connections (--connections N) for N seconds (default 10) after a 3 s warm-up; only the
//    profile's samples inside the measured window are counted (V8's profile clock and
//    process.hrtime are both CLOCK_MONOTONIC), and their time is summed by where it is
//    spent: the service's own files, each package, Node's core, GC, native built-ins.
// 2. PostgreSQL: the same server behind the wire counter (bench/lib/wire-counter.ts) answers
//    50 requests one at a time; each round trip is timed from its Query or Sync to the
//    server's ReadyForQuery, and the median of each trip of a request is reported with its
//    statements.
// Writes bench/results/profile-NAME.json and prints a summary (docs/performance.md cites it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { drive, median, type RequestSpec } from './lib/load.js';
import { Managed, databaseUrlOf, killAllStarted, startBenchServer, stopAllStarted } from './lib/processes.js';
import { WireCounter } from './lib/wire-counter.js';
import { QUICK_SIZE, seedPostgres, type SeededPostgres } from './seed.js';
import { cellList, cellPatch, personnelList, rowList, gridList, versionList, notificationPost, type Scenario } from './scenarios.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const LABEL = option('--label') ?? 'latest';
const SECONDS = Number(option('--seconds') ?? 10);
/** --connections N: autocannon's connections (default 10); 1 profiles a request on a machine that is not saturated (a sample of a process waiting for a core is not its CPU). */
const CONNECTIONS = Number(option('--connections') ?? 10);
const WANTED = (option('--scenarios') ?? '1-personnel-list,7-row-list-small,2-cell-patch').split(',');
const TRIP_REQUESTS = 50;
const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `records_profile_${process.pid}`;
const dbUrl = databaseUrlOf(ADMIN_URL, DB_NAME);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-profile-'));
const log = (line: string) => console.log(line);
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a profile frame's own time is counted. */
function category(frame: CpuProfileNode['callFrame']): string {
  const { functionName, url } = frame;
  if (!url) {
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(program)') return 'V8 and native code outside JS ((program))';
    return 'native built-ins (JSON, crypto, RegExp …)';
  }
  if (url.startsWith('node:')) return 'Node.js core (http, net, streams, timers …)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return `package ${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return `service ${url.slice(dist + '/dist/'.length).replace(/\.js$/, '')}`;
  return url;
}

/** Self time (ms) by category and by function, of the samples between t0 and t1 (µs, CLOCK_MONOTONIC). */
function summarizeProfile(profile: CpuProfile, t0: number, t1: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let at = profile.startTime;
  let busy = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    at += profile.timeDeltas[i];
    const next = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0;
    if (at < t0 || at > t1) continue;
    const frame = byId.get(profile.samples[i])!.callFrame;
    const ms = next / 1000;
    const where = category(frame);
    if (where === '(idle)') {
      idle += ms;
      continue;
    }
    busy += ms;
    byCategory.set(where, (byCategory.get(where) ?? 0) + ms);
    const name = `${frame.functionName || '(anonymous)'} ${frame.url ? `${frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${frame.lineNumber + 1}` : ''}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  }
  return { busy, idle, byCategory, byFunction };
}

/** A server process of this checkout (WORKERS=1) on `databaseUrl`, with `nodeArgs`. */
function startServer(label: string, databaseUrl: string, nodeArgs: string[] = []): Promise<{ managed: Managed; base: string }> {
  return startBenchServer({ label, databaseUrl, nodeArgs, dataDir: path.join(tmp, `data-${label}`), logFile: path.join(tmp, `${label}.log`) });
}

async function once(base: string, spec: RequestSpec): Promise<void> {
  const next = spec.setup?.() ?? {};
  const body = next.body ?? spec.body;
  const response = await fetch(base + (next.path ?? spec.path), {
    method: spec.method,
    headers: { ...spec.headers, ...next.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  if (response.status > 299) throw new Error(`${spec.method} ${next.path ?? spec.path} answered ${response.status}: ${text.slice(0, 300)}`);
}

/** The Node side of one scenario: its CPU profile inside the measured window, per request. */
async function profileNode(scenario: Scenario) {
  const dir = path.join(tmp, `prof-${scenario.id}`);
  const { managed, base } = await startServer(`prof-${scenario.id}`, dbUrl, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  try {
    await once(base, scenario.spec);
    await drive(base, scenario.spec, CONNECTIONS, 3);
    const t0 = Number(process.hrtime.bigint() / 1000n);
    const run = await drive(base, scenario.spec, CONNECTIONS, SECONDS);
    const t1 = Number(process.hrtime.bigint() / 1000n);
    await managed.stop(30_000);
    const file = fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no CPU profile was written in ${dir}`);
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    if (profile.startTime > t0 || profile.endTime < t1) throw new Error('the profile does not cover the measured window: are both clocks CLOCK_MONOTONIC here?');
    const summary = summarizeProfile(profile, t0, t1);
    const perRequest = (ms: number) => round(ms / run.requests);
    const sorted = (map: Map<string, number>, n: number) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n)
      .map(([name, ms]) => ({ name, ms_per_request: perRequest(ms), share: round(ms / summary.busy, 3) }));
    return {
      requests: run.requests, rps: run.rps, non2xx: run.non2xx + run.errors,
      busy_ms_per_request: perRequest(summary.busy), idle_share: round(summary.idle / (summary.idle + summary.busy), 3),
      by_category: sorted(summary.byCategory, 40),
      top_functions: sorted(summary.byFunction, 25),
    };
  } finally {
    await managed.stop();
  }
}

/** The PostgreSQL side of each scenario: each round trip of a request, timed, one request at a time. */
async function tripsOf(scenarios: Scenario[]) {
  const target = new URL(dbUrl);
  const counter = await WireCounter.start({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(dbUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(counter.port);
  const { managed, base } = await startServer('trips', proxied.toString());
  const results: Record<string, unknown> = {};
  try {
    for (const scenario of scenarios) {
      for (let i = 0; i < 5; i += 1) await once(base, scenario.spec);
      const perRequest: Array<Array<{ ms: number; sql: string[] }>> = [];
      for (let i = 0; i < TRIP_REQUESTS; i += 1) {
        counter.reset();
        await once(base, scenario.spec);
        // The mail worker's polling is background work, not the request's.
        const own = counter.statements.filter((s) => !/^\s*UPDATE mail_outbox\b/i.test(s.sql));
        const trips = new Map<number, string[]>();
        for (const s of own) if (s.trip !== undefined) trips.set(s.trip, [...(trips.get(s.trip) ?? []), s.sql.replace(/\s+/g, ' ').trim().slice(0, 120)]);
        perRequest.push([...trips.entries()].sort((a, b) => a[0] - b[0]).map(([trip, sql]) => ({ ms: counter.trips[trip].ms, sql })));
      }
      // The shape most requests had; medians over the requests of that shape.
      const shapes = new Map<number, number>();
      for (const r of perRequest) shapes.set(r.length, (shapes.get(r.length) ?? 0) + 1);
      const usual = [...shapes.entries()].sort((a, b) => b[1] - a[1])[0][0];
      const same = perRequest.filter((r) => r.length === usual);
      const trips = same[0].map((trip, i) => ({ median_ms: round(median(same.map((r) => r[i].ms))), statements: trip.sql }));
      results[scenario.id] = {
        round_trips: usual, requests: same.length,
        database_ms_per_request: round(median(same.map((r) => r.reduce((sum, t) => sum + t.ms, 0)))),
        trips,
      };
    }
  } finally {
    await managed.stop();
    await counter.close();
  }
  return results;
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'server.js'))) throw new Error('dist/server.js is missing: run `npm run build`');
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  await admin.end();
  let seed: SeededPostgres;
  {
    const { managed, base } = await startServer('seed', dbUrl);
    const pool = new pg.Pool({ connectionString: dbUrl, max: 4 });
    try {
      seed = await seedPostgres(base, pool, QUICK_SIZE, log, path.join(tmp, 'data-seed', 'mail'));
    } finally {
      await pool.end();
      await managed.stop();
    }
  }
  const all = [personnelList(seed, 'list'), cellPatch(seed), cellList(seed), versionList(seed), rowList(seed, 'small'), rowList(seed, 'big'), gridList(seed), notificationPost(seed)];
  const scenarios = WANTED.map((id) => {
    const found = all.find((s) => s.id === id);
    if (!found) throw new Error(`unknown scenario ${id}; known: ${all.map((s) => s.id).join(', ')}`);
    return found;
  });
  const node: Record<string, unknown> = {};
  for (const scenario of scenarios) {
    log(`profiling ${scenario.id} (${SECONDS} s at ${CONNECTIONS} connections)`);
    node[scenario.id] = await profileNode(scenario);
  }
  // --no-trips: the Node side only (the wire counter speaks TCP: a BENCH_DATABASE_URL on a Unix socket needs it).
  const database = argv.includes('--no-trips') ? {} : (log('timing the round trips to PostgreSQL'), await tripsOf(scenarios));
  const result = { label: LABEL, date: new Date().toISOString(), seconds: SECONDS, connections: 10, workers: 1, seed: 'quick', node, database };
  const out = path.join(ROOT, 'bench', 'results', `profile-${LABEL}.json`);
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  for (const scenario of scenarios) {
    const n = node[scenario.id] as Awaited<ReturnType<typeof profileNode>>;
    const d = (database as Record<string, unknown>)[scenario.id] as { round_trips: number; database_ms_per_request: number; trips: Array<{ median_ms: number; statements: string[] }> } | undefined ?? { round_trips: NaN, database_ms_per_request: NaN, trips: [] };
    log(`\n${scenario.id}: ${n.rps}/s, Node busy ${n.busy_ms_per_request} ms/request (idle ${Math.round(n.idle_share * 100)}%), `
      + `${d.round_trips} round trips, ${d.database_ms_per_request} ms waiting for PostgreSQL (one at a time)`);
    for (const c of n.by_category.slice(0, 12)) log(`  ${(c.share * 100).toFixed(1).padStart(5)}%  ${c.ms_per_request.toFixed(3)} ms  ${c.name}`);
    for (const t of d.trips) log(`  trip ${t.median_ms.toFixed(3)} ms  ${t.statements.join(' | ').slice(0, 150)}`);
  }
  log(`\nwritten: ${path.relative(ROOT, out)}`);
}

try {
  await main();
} finally {
  await stopAllStarted().catch(() => killAllStarted());
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  // PROFILE_KEEP_DATABASE=1 keeps the seeded database, to look further with psql.
  if (process.env.PROFILE_KEEP_DATABASE) console.log(`kept the database ${DB_NAME}`);
  else await admin.connect().then(() => admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`)).catch((err) => console.error(err.message));
  await admin.end().catch(() => {});
  fs.rmSync(tmp, { recursive: true, force: true });
}
