// Starts the real server (`node dist/server.js`) as a child process in its own process
// group, on a free port, and stops it (the whole group) again. Used by the harness
// (test/run.ts) and by tests that need an extra server process.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before } from 'node:test';
import { BASE_URL, DATA_DIR, DB_KIND, INITIAL_CREDITS, PROJECT_ROOT, SALES_CONTACT, TEST_DATABASE_URL } from './env.ts';
import type { Api } from './http.ts';

/** Service variables never inherited from the caller's environment: a server gets only what it is given. */
export const SERVICE_VARIABLES = [
  'PORT', 'HOST', 'DATABASE_URL', 'DATA_DIR', 'PUBLIC_URL', 'SMTP_URL', 'MAIL_FROM', 'SALES_CONTACT', 'INITIAL_CREDITS',
  'SIGNUP_ENABLED', 'TOKEN_IDLE_MINUTES', 'WORKERS', 'LOG_LEVEL', 'BODY_LIMIT_BYTES', 'MAIL_RETRY_SECONDS', 'DIGEST_CHECK_SECONDS', 'STATEMENT_TIMEOUT_SECONDS', 'HEAP_LIMIT_MB', 'METRICS_TOKEN', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_BSP_SCHEDULE_DELAY', 'OTEL_SERVICE_NAME', 'REQUEST_TIMEOUT_SECONDS', 'RETENTION_CHECK_SECONDS', 'WEB_DIR', 'SERVER_TIMING',
  'TRUSTED_PROXIES', 'LOGIN_FAILURES_PER_CLIENT', 'LOGIN_FAILURES_PER_ADDRESS', 'LOGIN_FAILURES_ACCOUNT_SLOWDOWN', 'LOGIN_SLOWDOWN_SECONDS',
  'MAIL_PER_USER_PER_HOUR', 'INVITATIONS_PER_USER_PER_DAY', 'ACCOUNT_MAIL_PER_CLIENT_PER_HOUR', 'ORGANIZATIONS_PER_USER', 'LIVE_STREAMS_PER_CREDENTIAL',
  'FILE_STORAGE', 'FILES_DIR', 'S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE', 'S3_PREFIX',
  'FILE_MAX_BYTES', 'FILES_QUOTA_BYTES', 'CLAMD_SOCKET', 'CLAMD_HOST', 'CLAMD_PORT', 'CLAMD_TIMEOUT_SECONDS', 'FILES_RESUMABLE_HOURS', 'FILES_GC_SECONDS', 'FILES_GC_GRACE_SECONDS',
  'BASE_URL', 'TEST_DB_KIND', 'TEST_DATABASE_URL', 'NODE_TEST_CONTEXT', 'TEST_INSTANCE_ADMIN_EMAIL', 'TEST_INSTANCE_ADMIN_PASSWORD',
];

export interface ServerOptions {
  /**
   * The PostgreSQL database, or null for embedded PGlite in `dataDir`. Default: the
   * database of this test run when it is PostgreSQL; with PGlite (one process per data
   * folder) an extra server cannot share the run's database and gets a fresh folder.
   */
  databaseUrl?: string | null;
  /**
   * DATA_DIR; default: the run's DATA_DIR on the run's PostgreSQL database (so mail any
   * process delivers lands where tests read it), else a fresh folder removed by stop().
   */
  dataDir?: string;
  /** WORKERS (PostgreSQL only; PGlite always runs one process). Default 1. */
  workers?: number;
  /** More environment for the server (SIGNUP_ENABLED, PUBLIC_URL …). */
  env?: Record<string, string>;
  /** How long to wait for GET /health/ → 200. Default 180 s (a busy two-core machine starting a fresh database took over 60). */
  startupSeconds?: number;
  /** Where the server's output goes; default server.log in a temporary folder. */
  logFile?: string;
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  pid: number;
  dataDir: string;
  databaseUrl: string | null;
  logFile: string;
  /** Settles when the server's primary process exits, with its exit code or signal. */
  exit: Promise<{ code: number | null; signal: string | null }>;
  /** The last `lines` lines of the server's output. */
  logTail(lines?: number): string;
  /** Stops the whole process group: SIGTERM, then SIGKILL after 10 s; removes folders it made. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

// If this process ends without stopping its servers (a crash, a test timeout), take them along.
process.on('exit', () => {
  for (const child of running) killGroup(child.pid!, 'SIGKILL');
});

/** Sends `signal` to process group `pid`; false when there is no such group. */
export function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether any process of group `pid` is still alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This process's environment without any of the service's (or the harness's) variables. */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !SERVICE_VARIABLES.includes(key)) env[key] = value;
  }
  return env;
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The last lines of a file (empty when it cannot be read). */
export function tail(file: string, lines = 60): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines - 1).join('\n');
  } catch {
    return '';
  }
}

class PortTaken extends Error {
  constructor(port: number) {
    super(`port ${port} was taken by another process`);
  }
}

/**
 * Whether a process of group `pgid` holds the listening socket of TCP `port` (Linux /proc);
 * undefined when that cannot be told.
 */
export function groupListensOn(pgid: number, port: number): boolean | undefined {
  try {
    const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
    const inodes = new Set<string>();
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      if (!fs.existsSync(table)) continue;
      for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/);
        if (cols.length > 9 && cols[1].endsWith(hex) && cols[3] === '0A') inodes.add(cols[9]);
      }
    }
    if (!inodes.size) return undefined;
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue;
      }
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      let fds: string[];
      try {
        fds = fs.readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
          if (inodes.has(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '')) return true;
        } catch {
          // closed meanwhile
        }
      }
    }
    return false;
  } catch {
    return undefined;
  }
}

/**
 * Starts `node dist/server.js` (build first) and waits until GET /health/ answers 200;
 * picks another port when the one chosen was taken meanwhile.
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launch(options);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt >= 3) throw err;
    }
  }
}

async function launch(options: ServerOptions): Promise<RunningServer> {
  const owned: string[] = [];
  const scratch = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-server-'));
    owned.push(dir);
    return dir;
  };
  const databaseUrl = options.databaseUrl !== undefined ? options.databaseUrl : DB_KIND === 'postgres' ? TEST_DATABASE_URL : null;
  // On the run's own PostgreSQL database, share the run's DATA_DIR too: any process of a
  // database may deliver its queued mail, and tests look for the .eml files there.
  const dataDir = options.dataDir ?? (databaseUrl && databaseUrl === TEST_DATABASE_URL ? DATA_DIR : path.join(scratch(), 'data'));
  fs.mkdirSync(dataDir, { recursive: true });
  const logFile = options.logFile ?? path.join(owned[0] ?? scratch(), 'server.log');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;

  const env = cleanEnv();
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    INITIAL_CREDITS,
    SALES_CONTACT,
    LOG_LEVEL: 'warn',
    MAIL_RETRY_SECONDS: '1',
    // Every test signs its users up from 127.0.0.1: the per-client account mail quota is tested on servers of its own.
    ACCOUNT_MAIL_PER_CLIENT_PER_HOUR: '1000000',
    WORKERS: String(options.workers ?? 1),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  });

  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/server.js'], {
    cwd: PROJECT_ROOT,
    env,
    detached: true, // its own process group, so stop() reaches the cluster workers too
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  running.add(child);
  let exited: { code: number | null; signal: string | null } | null = null;
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
  });

  const server: RunningServer = {
    baseUrl,
    port,
    pid: child.pid!,
    dataDir,
    databaseUrl,
    logFile,
    exit,
    logTail: (lines = 60) => tail(logFile, lines),
    async stop() {
      if (exited === null) {
        killGroup(child.pid!, 'SIGTERM');
        const timer = new Promise<'timeout'>((resolve) => setTimeout(resolve, 10_000, 'timeout').unref());
        if ((await Promise.race([exit, timer])) === 'timeout') killGroup(child.pid!, 'SIGKILL');
        await exit;
      }
      // Cluster workers may outlive the primary by a moment.
      for (let i = 0; i < 100 && groupAlive(child.pid!); i += 1) {
        if (i === 50) killGroup(child.pid!, 'SIGKILL');
        await sleep(100);
      }
      running.delete(child);
      for (const dir of owned) fs.rmSync(dir, { recursive: true, force: true });
    },
  };

  const deadline = Date.now() + (options.startupSeconds ?? 180) * 1000;
  for (;;) {
    if (exited !== null) {
      const { code, signal } = exited;
      const output = tail(logFile, 40);
      await server.stop();
      if (/EADDRINUSE/.test(output)) throw new PortTaken(port);
      throw new Error(`the server exited (code ${code}, signal ${signal}) before answering /health/:\n${output}`);
    }
    let healthy = false;
    try {
      const res = await fetch(`${baseUrl}/health/`, { signal: AbortSignal.timeout(2_000) });
      healthy = res.status === 200;
    } catch {
      // not listening yet
    }
    if (healthy) {
      // Another process may have taken the port between freePort() and our bind (other
      // test runs on this machine start servers too): make sure the answer was ours.
      if (groupListensOn(child.pid!, port) !== false) return server;
      await server.stop();
      throw new PortTaken(port);
    }
    if (Date.now() > deadline) {
      const output = tail(logFile, 40);
      await server.stop();
      throw new Error(`GET ${baseUrl}/health/ did not answer 200 within ${options.startupSeconds ?? 60} s:\n${output}`);
    }
    await sleep(200);
  }
}

/** The servers a test file spreads its requests over, and `api` talking to the i-th of them, round robin. */
export interface ServerSpread {
  urls: string[];
  through(api: Api, i: number): Api;
}

/**
 * Registers the file's hooks that start, on PostgreSQL, a second server process on the
 * harness's database (stopped after the file), so that racing requests meet in the
 * database, not in one process; on PGlite the harness's server serves alone.
 */
export function spreadOverServers(): ServerSpread {
  const urls = [BASE_URL];
  let second: RunningServer | null = null;
  before(async () => {
    if (DB_KIND !== 'postgres') return;
    second = await startServer();
    urls.push(second.baseUrl);
  });
  after(async () => {
    await second?.stop();
  });
  return { urls, through: (api, i) => api.at(urls[i % urls.length]) };
}

/**
 * A fresh instance: a server on a database nobody else uses (PGlite: a folder of its own;
 * PostgreSQL: a database of its own, dropped by stop()), with no account and so no
 * instance administrator, as a first `npm start` has. `env` as for startServer.
 */
export async function startFreshServer(env: Record<string, string> = {}): Promise<RunningServer> {
  if (DB_KIND !== 'postgres') return startServer({ databaseUrl: null, env });
  const { scratchDatabase } = await import('./scratch-db.ts');
  const { url, drop } = await scratchDatabase('fresh');
  let server: RunningServer;
  try {
    server = await startServer({ databaseUrl: url, env });
  } catch (err) {
    await drop();
    throw err;
  }
  const stop = server.stop.bind(server);
  return { ...server, stop: async () => { await stop(); await drop(); } };
}
