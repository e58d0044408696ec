// A seeded service on a database of its own, one server process whose connections go
// through the wire counter: what bench/trips.ts and bench/row-count-cost.ts share. The
// database, the process and the temporary folder are gone when `work` ends, also on failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Managed, ROOT, benchServerEnv, freePort, killAllStarted, waitForHttp } from './processes.js';
import { WireCounter } from './wire-counter.js';
import { seedPostgres, type SeedSize, type SeededPostgres } from '../seed.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface CountedServer {
  base: string;
  seed: SeededPostgres;
  counter: WireCounter;
  /** a pool on the database itself, past the counter (3 connections), and its URL */
  pool: pg.Pool;
  databaseUrl: string;
}

/** Creates `records_<label>_<pid>`, starts the server through a wire counter, seeds `size`, runs `work`, cleans up. */
export async function withCountedServer<T>(
  label: string, size: SeedSize, work: (server: CountedServer) => Promise<T>, log: (line: string) => void = () => {},
): Promise<T> {
  process.on('exit', () => killAllStarted());
  const dbName = `records_${label}_${process.pid}`;
  const target = new URL(ADMIN_URL);
  target.pathname = `/${dbName}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `records-${label}-`));
  const counter = await WireCounter.start({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(target);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(counter.port);
  const port = await freePort();
  const env = benchServerEnv(port, tmp, proxied.toString());
  const server = new Managed(label, process.execPath, [path.join(ROOT, 'dist', 'server.js')], env, path.join(tmp, 'server.log'), ROOT);
  const pool = new pg.Pool({ connectionString: target.toString(), max: 3 });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(server, `${base}/health/`, 120_000);
    const seed = await seedPostgres(base, pool, size, log, path.join(tmp, 'mail'));
    return await work({ base, seed, counter, pool, databaseUrl: target.toString() });
  } finally {
    await pool.end();
    await server.stop();
    await counter.close();
    // PLAN_COST_KEEP_DATABASE=1 keeps the seeded database (its name is logged) to try statements on.
    if (process.env.PLAN_COST_KEEP_DATABASE) console.log(`kept database ${dbName}`);
    else await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
