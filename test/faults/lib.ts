// What the fault tests share: resources that are always cleaned up (server process
// groups, fresh databases, throwaway PostgreSQL clusters), raw requests that record a
// missing answer instead of throwing, and a workspace with a priced widget.
//
// Every resource is undone by the test that made it (after/finally), by this process on
// SIGINT/SIGTERM, and, as a last resort, by the runner (test/faults/run.ts), which reads
// the list every test process appends to FAULT_STATE_FILE.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Api } from '../helpers/http.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { unique } from '../helpers/factories.ts';
import { freePort, killGroup, startServer, type RunningServer, type ServerOptions } from '../helpers/server.ts';
import { newSmallWorkspaceAt, recordPaths, type SmallWorkspace } from '../helpers/records.ts';

/** The PostgreSQL server fresh databases are made on (never restarted by these tests). */
export const ADMIN_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

// ------------------------------------------------------------ resources --

/** A resource to undo: a process group to kill, a database to drop, a cluster to stop and delete. */
export type Resource =
  | { kind: 'group'; pid: number }
  | { kind: 'database'; adminUrl: string; name: string }
  | { kind: 'cluster'; bin: string; dir: string };

const undo: Array<{ resource: Resource; step: () => Promise<void> }> = [];
let recorded = 0;

/** Appends a line to the runner's state file (when run by the runner). */
function tell(line: object): void {
  const file = process.env.FAULT_STATE_FILE;
  if (file) fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** Registers `resource` and its undo step; returns the step, which also unregisters it. */
function record(resource: Resource, step: () => Promise<void>): () => Promise<void> {
  // Only a process that makes resources (a test file, not the runner) undoes them on a signal.
  if (!recorded) {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => void undoAll().finally(() => process.exit(130)));
  }
  const entry = { resource, step };
  undo.push(entry);
  const id = `${process.pid}-${(recorded += 1)}`;
  tell({ id, resource });
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    const at = undo.indexOf(entry);
    if (at !== -1) undo.splice(at, 1);
    await step();
    tell({ released: id });
  };
}

/** Undoes every resource of this process still in place, newest first. */
export async function undoAll(): Promise<void> {
  while (undo.length) {
    const { step } = undo.pop()!;
    await step().catch((err) => console.error(`fault tests: clean-up failed: ${(err as Error).message}`));
  }
}


/** Undoes a resource described in the runner's state file (the runner's last resort). */
export async function undoResource(resource: Resource): Promise<void> {
  if (resource.kind === 'group') killGroup(resource.pid, 'SIGKILL');
  else if (resource.kind === 'database') await dropDatabase(resource.adminUrl, resource.name);
  else await removeCluster(resource.bin, resource.dir);
}

// -------------------------------------------------------------- servers --

/** Whether a live (not zombie) process of group `pgid` remains (Linux /proc). */
export function groupHasLiveProcess(pgid: number): boolean {
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

/** Waits (at most `seconds`) until no live process of group `pgid` remains; whether none does. */
export async function waitGroupGone(pgid: number, seconds = 10): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  while (groupHasLiveProcess(pgid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** startServer, with the process group registered for clean-up; stop() also unregisters it. */
export async function startTracked(options: ServerOptions): Promise<RunningServer> {
  const server = await startServer({ startupSeconds: 60, ...options });
  const release = record({ kind: 'group', pid: server.pid }, () => server.stop());
  const stop = server.stop.bind(server);
  server.stop = async () => {
    await stop();
    await release();
  };
  return server;
}

// ------------------------------------------------------------ databases --

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** A fresh database on ADMIN_URL, dropped by `drop()` (or the clean-up). */
export async function freshDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `records_fault_${label}_${process.pid}_${Date.now()}`;
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const drop = record({ kind: 'database', adminUrl: ADMIN_URL, name }, () => dropDatabase(ADMIN_URL, name));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop };
}

// -------------------------------------------------------------- clusters --

/** The bin folder of the newest PostgreSQL under /usr/lib/postgresql (or $PG_BIN). */
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) throw new Error(`no PostgreSQL server binaries under ${root} (set PG_BIN to their folder)`);
  return path.join(root, versions[0], 'bin');
}

/** Runs a PostgreSQL program as the postgres user when we are root (initdb and postgres refuse root); never blocks the event loop. */
function asPostgres(bin: string, program: string, args: string[], timeoutMs = 60_000): Promise<{ ok: boolean; output: string }> {
  const exe = path.join(bin, program);
  const [cmd, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
  return new Promise((resolve) => {
    execFile(cmd, argv, { encoding: 'utf8', timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ ok: !error, output: `${stdout ?? ''}${stderr ?? ''}${error ? `\n${error.message}` : ''}` });
    });
  });
}

async function removeCluster(bin: string, dir: string): Promise<void> {
  if (fs.existsSync(path.join(dir, 'data', 'postmaster.pid'))) await asPostgres(bin, 'pg_ctl', ['-D', path.join(dir, 'data'), 'stop', '-m', 'immediate', '-w', '-t', '20']);
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A throwaway PostgreSQL cluster of our own, on a free port; never the machine's shared one. */
export interface Cluster {
  url: string;
  port: number;
  dir: string;
  /** Stops it: `immediate` is a crash (no checkpoint, sessions cut), `fast` ends sessions with 57P01. */
  stop(mode: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again (after a crash: recovery), waiting until it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its folder. */
  remove(): Promise<void>;
}

/** initdb + pg_ctl start of a cluster in a temporary folder owned by postgres. */
export async function throwawayCluster(): Promise<Cluster> {
  const bin = postgresBin();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-fault-pg-'));
  const remove = record({ kind: 'cluster', bin, dir }, () => removeCluster(bin, dir));
  try {
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      fs.chownSync(dir, uid, gid);
    }
    const data = path.join(dir, 'data');
    const init = await asPostgres(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
    if (!init.ok) throw new Error(`initdb failed:\n${init.output}`);
    const port = await freePort();
    // fsync off: the machine does not crash in these tests, only PostgreSQL; synchronous
    // commit stays on, so an acknowledged commit is in the WAL before the answer.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
    const start = async () => {
      const started = await asPostgres(bin, 'pg_ctl', ['-D', data, '-l', path.join(dir, 'postgres.log'), '-o', options, '-w', '-t', '60', 'start']);
      if (!started.ok) throw new Error(`pg_ctl start failed:\n${started.output}\n${fs.readFileSync(path.join(dir, 'postgres.log'), 'utf8').slice(-2000)}`);
    };
    await start();
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      dir,
      async stop(mode) {
        const stopped = await asPostgres(bin, 'pg_ctl', ['-D', data, 'stop', '-m', mode, '-w', '-t', '30']);
        if (!stopped.ok) throw new Error(`pg_ctl stop -m ${mode} failed:\n${stopped.output}`);
      },
      start,
      remove,
    };
  } catch (err) {
    await remove();
    throw err;
  }
}

// ------------------------------------------------------------- requests --

/** One request's outcome: its status (null: no answer), body, how long it took and when it ended. */
export interface Attempt {
  status: number | null;
  error: string | null;
  json: any;
  text: string;
  headers: Headers | null;
  ms: number;
  endedAt: number;
}

/** Sends a request and records what came back, or that nothing did (a reset, a refusal, a timeout). */
export async function attempt(method: string, url: string, options: { token?: string; body?: unknown; timeoutMs?: number } = {}): Promise<Attempt> {
  const started = Date.now();
  const headers: Record<string, string> = {};
  if (options.token) headers.token = options.token;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(url, {
      method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, error: null, json, text, headers: res.headers, ms: Date.now() - started, endedAt: Date.now() };
  } catch (err) {
    const e = err as Error & { cause?: Error & { code?: string } };
    return { status: null, error: e.cause?.code ?? e.cause?.message ?? e.name, json: undefined, text: '', headers: null, ms: Date.now() - started, endedAt: Date.now() };
  }
}

/** GET `url` over a new connection (no keep-alive pool): its status, or the connection error's code. */
export function probeNewConnection(url: string, timeoutMs = 5_000): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

// ------------------------------------------------------------ workspace --

/** A small workspace with a priced widget, `columns` columns of it and `rows` rows. */
export interface PricedWorkspace extends SmallWorkspace {
  widget: any;
  priced: any[];
  rows: any[];
}

/** newSmallWorkspaceAt, plus a widget costing `price` per cell write, its columns and rows. */
export async function pricedWorkspace(
  server: { baseUrl: string; dataDir: string }, options: { label: string; price: string; columns: number; rows: number },
): Promise<PricedWorkspace> {
  const ws = await newSmallWorkspaceAt(server, options.label, 0);
  const api: Api = ws.api;
  const widget = expectStatus(await api.post(recordPaths.widgetList(ws.org.sid), {
    name: `Priced ${unique('w')}`, description: 'a priced widget', price: options.price, addable_at_readonly: false,
  }), 201, 'widget').json;
  const priced: any[] = [];
  for (let i = 0; i < options.columns; i += 1) {
    priced.push(expectStatus(await api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: ws.table.sid }), {
      name: `Priced ${i}`, widget: widget.sid, order: i,
    }), 201, 'column').json);
  }
  const rows: any[] = [];
  for (let i = 0; i < options.rows; i += 1) {
    rows.push(expectStatus(await api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), {
      name: `Row ${i} ${unique('r')}`,
    }), 201, 'row').json);
  }
  return { ...ws, widget, priced, rows };
}
