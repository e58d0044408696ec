// Starting, watching and stopping the server processes the benchmark drives.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Every process this run started and has not stopped yet: stopped on any exit. */
const running = new Set<Managed>();

export interface PeakRss {
  pid: number;
  role: 'primary' | 'worker';
  peak_rss_mb: number;
}

export interface Rss {
  pid: number;
  role: 'primary' | 'worker';
  rss_mb: number;
}

/** A process tree started by the benchmark: a primary and, in a cluster, its workers. */
export class Managed {
  readonly child: ChildProcess;
  private exited: Promise<void>;
  private exitCode: number | null = null;
  /** Peak RSS of every process seen in the tree, updated by sample(). */
  private peaks = new Map<number, PeakRss>();

  constructor(readonly label: string, command: string, args: string[], env: NodeJS.ProcessEnv, readonly logFile: string, cwd: string) {
    const log = fs.openSync(logFile, 'a');
    this.child = spawn(command, args, { cwd, env, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => { this.exitCode = code ?? -1; resolve(); }));
    running.add(this);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.exitCode === null;
  }

  /** The primary and its children (cluster workers). */
  pids(): number[] {
    if (!this.alive) return [];
    return [this.pid, ...childrenOf(this.pid)];
  }

  /** Reads VmHWM (peak resident set) of each process of the tree now; keeps the highest seen. */
  sample(): PeakRss[] {
    for (const pid of this.pids()) {
      const kb = statusKb(pid, 'VmHWM');
      if (kb === null) continue;
      const mb = Math.round((kb / 1024) * 10) / 10;
      const known = this.peaks.get(pid);
      if (!known || known.peak_rss_mb < mb) this.peaks.set(pid, { pid, role: pid === this.pid ? 'primary' : 'worker', peak_rss_mb: mb });
    }
    return [...this.peaks.values()];
  }

  /** The resident set (VmRSS) of each process of the tree now; the peaks are updated too. */
  rss(): Rss[] {
    this.sample();
    const now: Rss[] = [];
    for (const pid of this.pids()) {
      const kb = statusKb(pid, 'VmRSS');
      if (kb !== null) now.push({ pid, role: pid === this.pid ? 'primary' : 'worker', rss_mb: Math.round((kb / 1024) * 10) / 10 });
    }
    return now;
  }

  /** The last lines of the process's log, for error messages. */
  tail(lines = 30): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** SIGTERM, then SIGKILL to the whole tree after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    running.delete(this);
    if (!this.alive) return;
    const tree = this.pids();
    this.child.kill('SIGTERM');
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    if ((await Promise.race([this.exited.then(() => 'exited' as const), timer])) === 'timeout') {
      for (const pid of tree) killQuietly(pid, 'SIGKILL');
      await this.exited;
    }
    // Workers whose primary died first must not outlive the run.
    for (const pid of tree.slice(1)) killQuietly(pid, 'SIGKILL');
  }

  /** Resolves when the process exits (for processes that end by themselves). */
  async wait(): Promise<number> {
    await this.exited;
    running.delete(this);
    return this.exitCode ?? -1;
  }
}

function killQuietly(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
}

/** The direct children of a process (`pgrep -P`). */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when there is none
  }
}

/** A memory figure of /proc/PID/status: VmHWM (peak resident set) or VmRSS (resident set now). */
export function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Stops every process still running (SIGKILL, synchronously): the last resort on exit. */
export function killAllStarted(): void {
  for (const managed of running) {
    for (const pid of managed.pids().reverse()) killQuietly(pid, 'SIGKILL');
  }
  running.clear();
}

/** Stops every process still running, politely. */
export async function stopAllStarted(): Promise<void> {
  await Promise.all([...running].map((m) => m.stop(5_000)));
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200, or throws with the process's log after `timeoutMs`. */
export async function waitForHttp(managed: Managed, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!managed.alive) throw new Error(`${managed.label} exited before serving:\n${managed.tail()}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await sleep(100);
  }
  throw new Error(`${managed.label} did not answer ${url} within ${timeoutMs / 1000} s:\n${managed.tail()}`);
}

/** Waits until a cluster primary has `workers` children (each forks, then listens). */
export async function waitForWorkers(managed: Managed, workers: number, timeoutMs = 30_000): Promise<void> {
  if (workers <= 1) return;
  const deadline = Date.now() + timeoutMs;
  while (childrenOf(managed.pid).length < workers) {
    if (Date.now() > deadline) throw new Error(`${managed.label}: ${workers} workers did not start:\n${managed.tail()}`);
    await sleep(100);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The repository's root (bench/lib/ is two levels down). */
export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

/** The node flags `npm start` gives the service (package.json's start script): the benches start it as operators do. */
export const START_NODE_FLAGS: string[] = (() => {
  const start: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('dist/server.js')).filter((w) => w.startsWith('--') && w !== '--enable-source-maps');
})();

/** The URL of database `name` on the server `adminUrl` names. */
export function databaseUrlOf(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The environment of a benchmark's own server process: one worker on `port`, quiet logs,
 * credits and mail limits no run reaches, and none of the caller's mail, public URL or
 * node options; `extra` on top.
 */
export function benchServerEnv(port: number, dataDir: string, databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', WORKERS: '1', LOG_LEVEL: 'warn', DATA_DIR: dataDir, DATABASE_URL: databaseUrl,
    INITIAL_CREDITS: '100000000000.00', SIGNUP_ENABLED: 'true', MAIL_PER_USER_PER_HOUR: '1000000', INVITATIONS_PER_USER_PER_DAY: '1000000', ...extra,
  };
  for (const name of ['SMTP_URL', 'PUBLIC_URL', 'NODE_OPTIONS']) if (!(name in extra)) delete env[name];
  return env;
}

/** Starts `root`'s dist/server.js with benchServerEnv (its data in `dataDir`, its log in `logFile`) and waits until it answers. */
export async function startBenchServer(options: {
  label: string; databaseUrl: string; dataDir: string; logFile: string; root?: string; nodeArgs?: string[]; env?: Record<string, string>;
}): Promise<{ managed: Managed; base: string }> {
  const root = options.root ?? ROOT;
  const port = await freePort();
  fs.mkdirSync(options.dataDir, { recursive: true });
  const env = benchServerEnv(port, options.dataDir, options.databaseUrl, options.env);
  const managed = new Managed(options.label, process.execPath, [...(options.nodeArgs ?? []), path.join(root, 'dist', 'server.js')], env, options.logFile, root);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(managed, `${base}/health/`, 120_000);
  return { managed, base };
}
