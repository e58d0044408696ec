import path from 'node:path';
import os from 'node:os';
import net from 'node:net';

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
  /** Account mail (signup, password reset, proof) one client address may cause per hour. */
  accountMailPerClientPerHour: number;
  /** Organizations one account may create. */
  organizationsPerUser: number;
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

/** Reads and validates the configuration; throws ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
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
    mailBaseUrl: '',
    trustedProxies: [],
    loginFailuresPerClient: int('LOGIN_FAILURES_PER_CLIENT', 10, 1, 100000),
    loginFailuresPerAddress: int('LOGIN_FAILURES_PER_ADDRESS', 50, 1, 1000000),
    loginFailuresAccountSlowdown: int('LOGIN_FAILURES_ACCOUNT_SLOWDOWN', 100, 1, 1000000),
    loginSlowdownSeconds: int('LOGIN_SLOWDOWN_SECONDS', 5, 1, 3600),
    mailPerUserPerHour: int('MAIL_PER_USER_PER_HOUR', 200, 1, 100000000),
    accountMailPerClientPerHour: int('ACCOUNT_MAIL_PER_CLIENT_PER_HOUR', 300, 1, 10000000),
    organizationsPerUser: int('ORGANIZATIONS_PER_USER', 10, 1, 100000),
  };
  config.mailBaseUrl = config.publicUrl ?? derivedBaseUrl(config.host, config.port);
  config.trustedProxies = (env.TRUSTED_PROXIES ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  for (const proxy of config.trustedProxies) {
    if (!isAddressOrRange(proxy)) problems.push(`TRUSTED_PROXIES must list IP addresses or CIDR ranges (like 10.0.0.0/8), got "${proxy}"`);
  }
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${config.logLevel}"`);
  }
  if (problems.length) throw new ConfigError(problems);
  return config;
}
