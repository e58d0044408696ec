// The database round trips of one request of a few scenarios, in seconds rather than the
// full benchmark's minutes: a fresh database with a tiny seed, one server process whose
// connections go through the wire counter, and each request's statements printed.
//
//   npm run -s build && node --import tsx bench/trips.ts [scenario id prefix …]
//
// (e.g. `5-notification-post`); without arguments every scenario of the seed. Uses
// BENCH_DATABASE_URL like bench/run.ts and drops its database afterwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Managed, ROOT, freePort, killAllStarted, waitForHttp } from './lib/processes.js';
import { WireCounter } from './lib/wire-counter.js';
import { seedPostgres, type SeedSize } from './seed.js';
import {
  cellList, cellPatch, cellPost, gridList, inboxList, notificationPost, personnelList, rowList, stepList, versionList, workflowList, type Scenario,
} from './scenarios.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `records_trips_${process.pid}`;
const REQUESTS = 5;
const SIZE: SeedSize = {
  personnel: 20, projects: 2, tables: 3, columnsPerTable: 2, rows: 40, smallTableRows: 4, longRowVersions: 600, recipients: 5,
  postRows: 10, workflows: 2, stepsPerWorkflow: 2,
};

const urlOf = (name: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};
process.on('exit', () => killAllStarted());

async function main() {
  const only = process.argv.slice(2);
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'records-trips-'));
  const target = new URL(urlOf(DB_NAME));
  const counter = await WireCounter.start({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(target);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(counter.port);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', WORKERS: '1', LOG_LEVEL: 'warn', DATA_DIR: tmp,
    SIGNUP_ENABLED: 'true', INITIAL_CREDITS: '100000000000.00', MAIL_PER_USER_PER_HOUR: '1000000', DATABASE_URL: proxied.toString(),
  };
  for (const name of ['SMTP_URL', 'PUBLIC_URL', 'NODE_OPTIONS']) delete env[name];
  const server = new Managed('trips', process.execPath, [path.join(ROOT, 'dist', 'server.js')], env, path.join(tmp, 'server.log'), ROOT);
  const pool = new pg.Pool({ connectionString: target.toString(), max: 3 });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(server, `${base}/health/`, 120_000);
    const seed = await seedPostgres(base, pool, SIZE, () => {}, path.join(tmp, 'mail'));
    const scenarios: Scenario[] = [
      personnelList(seed, 'list'), cellPatch(seed), cellPost(seed), notificationPost(seed), inboxList(seed), cellList(seed),
      rowList(seed, 'small'), rowList(seed, 'big'), gridList(seed), versionList(seed), workflowList(seed), stepList(seed),
    ].filter((s) => !only.length || only.some((prefix) => s.id.startsWith(prefix)));
    for (const scenario of scenarios) {
      await send(base, scenario);
      counter.reset();
      for (let i = 0; i < REQUESTS; i += 1) await send(base, scenario);
      const background = (text: string) => /^\s*UPDATE mail_outbox\b/i.test(text) || /FROM mail_outbox/i.test(text);
      const statements = counter.statements.filter((s) => !background(s.sql));
      const trips = (counter.roundTrips - (counter.statements.length - statements.length)) / REQUESTS;
      console.log(`${scenario.id}: ${trips} round trips, ${statements.length / REQUESTS} statements per request`);
      for (const s of statements.slice(-Math.round(statements.length / REQUESTS))) console.log(`    ${s.kind} ${s.sql.replace(/\s+/g, ' ').trim().slice(0, 200)}`);
    }
  } finally {
    await pool.end();
    await server.stop();
    await counter.close();
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.end();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function send(base: string, scenario: Scenario): Promise<void> {
  const next = scenario.spec.setup?.() ?? {};
  const body = next.body ?? scenario.spec.body;
  const response = await fetch(base + (next.path ?? scenario.spec.path), {
    method: scenario.spec.method,
    headers: { ...scenario.spec.headers, ...next.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${scenario.id} answered ${response.status}: ${text.slice(0, 300)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
