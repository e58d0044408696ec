import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import type { S3Settings } from './storage/s3.js';
import type { ClamdSettings } from './storage/clamd.js';

/** Files (issue 25): where their bytes are kept, their limits, the optional scan (docs/files.md). */
export interface FilesConfig {
  /** FILE_STORAGE: a folder (the embedded default) or S3-compatible object storage. */
  storage: 'folder' | 's3';
  /** FILES_DIR (default DATA_DIR/files): the folder store's objects, and every process's resumable uploads in progress. */
  dir: string;
  s3: S3Settings | null;
  /** FILE_MAX_BYTES: the largest file (413 past it). */
  maxBytes: number;
  /** FILES_QUOTA_BYTES: what one organization's files may hold in all (413 past it). */
  quotaBytes: number;
  /** CLAMD_SOCKET or CLAMD_HOST: scan every file with this ClamAV daemon before it becomes readable (null: no scan). */
  clamd: ClamdSettings | null;
  /** FILES_RESUMABLE_HOURS: how long an unfinished resumable upload is kept for its client to resume. */
  resumableHours: number;
  /** FILES_GC_SECONDS: how often each process looks for stored objects no file refers to any more. */
  gcEverySeconds: number;
  /** FILES_GC_GRACE_SECONDS: how long an unreferenced object is kept before it is deleted. */
  gcGraceSeconds: number;
}

/** The service's configuration, read once from the environment and validated at boot. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  publicUrl: string | null;
  smtpUrl: string | null;
  mailFrom: string;
  salesContact: string;
  initialCredits: string;
  signupEnabled: boolean;
  tokenIdleMinutes: number;
  /** PostgreSQL: the longest a statement may run (then the request answers 503). */
  statementTimeoutSeconds: number;
  /** The V8 heap limit of cluster workers, in MB (0: V8's default). */
  heapLimitMb: number;
  workers: number;
  logLevel: string;
  bodyLimit: number;
  mailRetrySeconds: number;
  digestCheckSeconds: number;
  /** GET /metrics answers only to `Authorization: Bearer <metricsToken>`; null: no metrics endpoint. */
  metricsToken: string | null;
  /** OpenTelemetry: the OTLP/HTTP endpoint traces are sent to; null: no tracing. */
  otelEndpoint: string | null;
  /** The most a row may hold (name, description and cells, as JSON), in bytes: a write past it is refused (400). */
  rowMaxBytes: number;
  /** The most one read of an answer (a list's records at their largest, a verification's batch) may hold, in bytes. */
  answerMaxBytes: number;
  /** The process's budget of heavy work in flight (large answers being written, verifications), in bytes: past it, 503. */
  heavyWorkBytes: number;
  heavyWorkWaitMs: number;
  /** How long a client may take to send a whole request (then 408). */
  requestTimeoutSeconds: number;
  /** How often each process runs the retention job (jobs/retention.ts). */
  retentionCheckSeconds: number;
  /** How often each process looks for tables whose planner statistics are stale (jobs/statistics.ts). */
  statisticsCheckSeconds: number;
  /** The built web app served at / (WEB_DIR; default dist/web beside the compiled service). */
  webDir: string;
  /** Answers carry Server-Timing with the request's number of SQL statements (SERVER_TIMING). */
  serverTiming: boolean;
  /** The base of links in mail: PUBLIC_URL, or one derived from HOST and PORT at start-up (never a request's headers). */
  mailBaseUrl: string;
  /** TRUSTED_PROXIES: addresses or CIDR ranges whose X-Forwarded-For is believed (empty: nobody's). */
  trustedProxies: string[];
  /** Sign-in limits, per 15 minutes (docs/decisions.md, Accounts). */
  loginFailuresPerClient: number;
  loginFailuresPerAddress: number;
  loginFailuresAccountSlowdown: number;
  loginSlowdownSeconds: number;
  /** Mail a signed-in user may cause per hour (should_email, invitations, address proofs). */
  mailPerUserPerHour: number;
  /** People one signed-in user may add to organizations a day (each gets one invitation mail); 429 beyond. */
  invitationsPerUserPerDay: number;
  /** Account mail (signup, password reset, proof) one client address may cause per hour. */
  accountMailPerClientPerHour: number;
  /** Organizations one account may create. */
  organizationsPerUser: number;
  /** The most live streams (server-sent events) one credential may hold open in one server process (then 429). */
  liveStreamsPerCredential: number;
  files: FilesConfig;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

/** http://HOST:PORT, with a wildcard HOST (0.0.0.0, ::) named localhost and an IPv6 address bracketed. */
function derivedBaseUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : net.isIPv6(host) ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** An IPv4/IPv6 address, or one with a /prefix length. */
function isAddressOrRange(value: string): boolean {
  const [address, bits, extra] = value.split('/');
  if (extra !== undefined) return false;
  const family = net.isIP(address);
  if (!family) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

const MONEY = /^\d{1,12}(\.\d{1,2})?$/;

/** The names of the settings loadConfig reads (filled as it reads them). */
const SETTINGS = new Set<string>(['OTEL_SERVICE_NAME', 'OTEL_BSP_SCHEDULE_DELAY']);

/** Reads and validates the configuration; throws ConfigError listing every problem. */
export function loadConfig(given: NodeJS.ProcessEnv = process.env): Config {
  // Every name read here is a setting: settingTypos() compares the environment with them.
  const env = new Proxy(given, {
    get(target, name) {
      if (typeof name === 'string') SETTINGS.add(name);
      return target[name as string];
    },
  });
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
    if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | null => {
    const raw = env[name];
    if (raw === undefined || raw === '') return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) problems.push(`${name} must start with ${protocols.join(' or ')}`);
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };

  const initialCredits = env.INITIAL_CREDITS && env.INITIAL_CREDITS !== '' ? env.INITIAL_CREDITS : '0.00';
  if (!MONEY.test(initialCredits)) problems.push(`INITIAL_CREDITS must be a decimal amount like 10.00, got "${initialCredits}"`);

  const rowMaxBytes = int('ROW_MAX_BYTES', 1024 * 1024, 16 * 1024, 64 * 1024 * 1024);
  // On PostgreSQL a read holds a default page (10 records) at the default row bound, so a page
  // of 10 rows, cells or versions is one read, one statement (it was 7 + 3: the page's
  // statements twice); 2 such reads fit the 24 MiB budget a process, 20 records in flight
  // where 3 reads of 7 held 21. A smaller row bound keeps 8 MiB reads; a larger one gets at
  // most 11 MiB (at least ROW_MAX_BYTES, checked below, as before).
  const pgAnswerBytes = Math.max(8 * 1024 * 1024, Math.min(10 * (rowMaxBytes + 4096), 11 * 1024 * 1024));
  const config: Config = {
    port: int('PORT', 8000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    publicUrl: url('PUBLIC_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null,
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM || 'Records Service <no-reply@records.local>',
    salesContact: env.SALES_CONTACT || 'sales@records.local',
    initialCredits,
    signupEnabled: bool('SIGNUP_ENABLED', true),
    tokenIdleMinutes: int('TOKEN_IDLE_MINUTES', 30, 1, 525600),
    workers: int('WORKERS', os.availableParallelism(), 1, 256),
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimit: int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    mailRetrySeconds: int('MAIL_RETRY_SECONDS', 5, 1, 3600),
    digestCheckSeconds: int('DIGEST_CHECK_SECONDS', 3600, 1, 7 * 24 * 3600),
    statementTimeoutSeconds: int('STATEMENT_TIMEOUT_SECONDS', 30, 1, 3600),
    heapLimitMb: int('HEAP_LIMIT_MB', 192, 0, 65536),
    metricsToken: env.METRICS_TOKEN || null,
    otelEndpoint: url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
    rowMaxBytes,
    // The embedded engine copies every result through its own memory, which never shrinks:
    // smaller reads and a smaller budget there (docs/decisions.md, "the heavy-work budget").
    answerMaxBytes: int('ANSWER_MAX_BYTES', env.DATABASE_URL ? pgAnswerBytes : 4 * 1024 * 1024, 64 * 1024, 256 * 1024 * 1024),
    heavyWorkBytes: int('HEAVY_WORK_BYTES', (env.DATABASE_URL ? 24 : 12) * 1024 * 1024, 64 * 1024, 16 * 1024 * 1024 * 1024),
    heavyWorkWaitMs: int('HEAVY_WORK_WAIT_MS', 2000, 0, 60_000),
    requestTimeoutSeconds: int('REQUEST_TIMEOUT_SECONDS', 60, 1, 3600),
    retentionCheckSeconds: int('RETENTION_CHECK_SECONDS', 3600, 1, 7 * 24 * 3600),
    statisticsCheckSeconds: int('STATISTICS_CHECK_SECONDS', 60, 1, 24 * 3600),
    serverTiming: bool('SERVER_TIMING', false),
    webDir: path.resolve(env.WEB_DIR || path.join(path.dirname(fileURLToPath(import.meta.url)), 'web')),
    mailBaseUrl: '',
    trustedProxies: [],
    loginFailuresPerClient: int('LOGIN_FAILURES_PER_CLIENT', 10, 1, 100000),
    loginFailuresPerAddress: int('LOGIN_FAILURES_PER_ADDRESS', 50, 1, 1000000),
    loginFailuresAccountSlowdown: int('LOGIN_FAILURES_ACCOUNT_SLOWDOWN', 100, 1, 1000000),
    loginSlowdownSeconds: int('LOGIN_SLOWDOWN_SECONDS', 5, 1, 3600),
    mailPerUserPerHour: int('MAIL_PER_USER_PER_HOUR', 200, 1, 100000000),
    invitationsPerUserPerDay: int('INVITATIONS_PER_USER_PER_DAY', 300, 1, 100000000),
    accountMailPerClientPerHour: int('ACCOUNT_MAIL_PER_CLIENT_PER_HOUR', 300, 1, 10000000),
    organizationsPerUser: int('ORGANIZATIONS_PER_USER', 10, 1, 100000),
    liveStreamsPerCredential: int('LIVE_STREAMS_PER_CREDENTIAL', 16, 1, 100000),
    files: filesConfig(env, path.resolve(env.DATA_DIR || './data'), { int, bool, url, problems }),
  };
  if (config.metricsToken !== null && config.metricsToken.length < 16) {
    problems.push('METRICS_TOKEN must be at least 16 characters (it guards the metrics; make it random)');
  }
  config.mailBaseUrl = config.publicUrl ?? derivedBaseUrl(config.host, config.port);
  config.trustedProxies = (env.TRUSTED_PROXIES ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  for (const proxy of config.trustedProxies) {
    if (!isAddressOrRange(proxy)) problems.push(`TRUSTED_PROXIES must list IP addresses or CIDR ranges (like 10.0.0.0/8), got "${proxy}"`);
  }
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${config.logLevel}"`);
  }
  if (config.answerMaxBytes < config.rowMaxBytes) problems.push('ANSWER_MAX_BYTES must be at least ROW_MAX_BYTES (an answer holds at least one row)');
  if (config.heavyWorkBytes < config.answerMaxBytes) problems.push('HEAVY_WORK_BYTES must be at least ANSWER_MAX_BYTES (the budget holds at least one read)');
  if (problems.length) throw new ConfigError(problems);
  return config;
}

const GIB = 1024 ** 3;

/** The files' settings (docs/files.md). */
function filesConfig(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  read: {
    int: (name: string, fallback: number, min: number, max: number) => number;
    bool: (name: string, fallback: boolean) => boolean;
    url: (name: string, protocols: string[]) => string | null;
    problems: string[];
  },
): FilesConfig {
  const { int, bool, url, problems } = read;
  const storage = (env.FILE_STORAGE || 'folder') as FilesConfig['storage'];
  if (!['folder', 's3'].includes(storage)) problems.push(`FILE_STORAGE must be folder or s3, got "${storage}"`);
  const s3: S3Settings = {
    bucket: env.S3_BUCKET ?? '',
    endpoint: url('S3_ENDPOINT', ['http:', 'https:']),
    region: env.S3_REGION || 'us-east-1',
    accessKeyId: env.S3_ACCESS_KEY_ID || null,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || null,
    forcePathStyle: bool('S3_FORCE_PATH_STYLE', false),
    prefix: env.S3_PREFIX ?? '',
  };
  if (storage === 's3') {
    if (!s3.bucket) problems.push('FILE_STORAGE=s3 needs S3_BUCKET');
    if (!s3.accessKeyId !== !s3.secretAccessKey) problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  }
  if (s3.prefix && !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/$/.test(s3.prefix)) problems.push(`S3_PREFIX must be folder names ending with "/" (like records/), got "${s3.prefix}"`);
  const socket = env.CLAMD_SOCKET || null;
  const host = env.CLAMD_HOST || null;
  if (socket && host) problems.push('set CLAMD_SOCKET or CLAMD_HOST, not both');
  const port = int('CLAMD_PORT', 3310, 1, 65535);
  const timeoutMs = int('CLAMD_TIMEOUT_SECONDS', 120, 1, 3600) * 1000;
  const clamd = socket || host ? { socket, host, port, timeoutMs } : null;
  return {
    storage,
    dir: path.resolve(env.FILES_DIR || path.join(dataDir, 'files')),
    s3: storage === 's3' ? s3 : null,
    maxBytes: int('FILE_MAX_BYTES', 5 * GIB, 1, 5 * 1024 * GIB),
    quotaBytes: int('FILES_QUOTA_BYTES', 100 * GIB, 0, 1024 ** 5),
    clamd,
    resumableHours: int('FILES_RESUMABLE_HOURS', 24, 1, 24 * 365),
    gcEverySeconds: int('FILES_GC_SECONDS', 3600, 1, 7 * 24 * 3600),
    gcGraceSeconds: int('FILES_GC_GRACE_SECONDS', 24 * 3600, 0, 365 * 24 * 3600),
  };
}

/** The edit distance between two names (insertions, deletions, substitutions, swaps of neighbours). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) d[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Environment variables that look like one of the service's settings but are not one
 * (`DATABSE_URL`), each with the setting it probably meant: a typo must not quietly run
 * the service on its defaults. Call after loadConfig.
 */
export function settingTypos(env: NodeJS.ProcessEnv = process.env): Array<{ name: string; meant: string }> {
  const found: Array<{ name: string; meant: string }> = [];
  for (const name of Object.keys(env)) {
    if (SETTINGS.has(name) || name.length < 4) continue;
    let best: { meant: string; d: number } | null = null;
    const upper = name.toUpperCase();
    for (const setting of SETTINGS) {
      const most = setting.length >= 8 ? 2 : 1;
      // The distance is at least the difference in length: most names need no table (npm start's ~100 npm_* variables).
      if (Math.abs(upper.length - setting.length) > most) continue;
      const d = distance(upper, setting);
      if (d <= most && (!best || d < best.d)) best = { meant: setting, d };
    }
    if (best) found.push({ name, meant: best.meant });
  }
  return found;
}
