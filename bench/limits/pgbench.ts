// The database's own limit for a cell PATCH: pgbench running bench/cell-patch.sql (the
// same statements as one PATCH) at the same concurrency, with no application in between.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface PgbenchRun {
  tps: number;
  p50_ms: number;
  p99_ms: number;
  transactions: number;
  failed: number;
  /** pgbench -r: average latency of each statement of the script, in ms (lock waits included) */
  statements: { ms: number; sql: string }[];
}

export interface PgbenchMeasurement {
  script: string;
  connections: number;
  runs: PgbenchRun[];
  /** medians over the runs */
  tps: number;
  p50_ms: number;
  p99_ms: number;
  failed: number;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** One pgbench run; latencies from its per-transaction log (-l). */
export async function pgbenchRun(
  databaseUrl: string, script: string, variables: Record<string, string | number>, connections: number, seconds: number,
  extraArgs: string[] = [],
): Promise<PgbenchRun> {
  const url = new URL(databaseUrl);
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-pgbench-'));
  const args = [
    '-n', '-r', ...extraArgs, '-f', script, '-c', String(connections), '-j', '2', '-T', String(seconds),
    '-l', '--log-prefix', path.join(logDir, 'tx'),
    '-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'),
    ...Object.entries(variables).flatMap(([name, value]) => ['-D', `${name}=${value}`]),
    url.pathname.slice(1),
  ];
  const env = { ...process.env, ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}) };
  try {
    const output = await new Promise<string>((resolve, reject) => {
      execFile('pgbench', args, { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`pgbench failed: ${error.message}\n${stderr.split('\n').slice(-20).join('\n')}`));
        else resolve(stdout + stderr);
      });
    });
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
    if (!tps) throw new Error(`pgbench printed no tps:\n${output}`);
    const failed = Number(/number of failed transactions: (\d+)/.exec(output)?.[1] ?? 0);
    const statements: { ms: number; sql: string }[] = [];
    const perStatement = output.split(/statement latencies in milliseconds[^\n]*\n/)[1] ?? '';
    for (const line of perStatement.split('\n')) {
      const match = /^\s+([\d.]+)\s+(?:\d+\s+)?(\S.*)$/.exec(line);
      if (match && !match[2].startsWith('\\')) statements.push({ ms: Number(match[1]), sql: match[2].slice(0, 100) });
    }
    const latencies: number[] = [];
    for (const file of fs.readdirSync(logDir)) {
      for (const line of fs.readFileSync(path.join(logDir, file), 'utf8').split('\n')) {
        // client_id transaction_no time_us script_no time_epoch time_us
        const fields = line.split(' ');
        if (fields.length >= 6 && fields[2] !== 'failed' && fields[2] !== 'skipped') latencies.push(Number(fields[2]) / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    const at = (p: number) => latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] : NaN;
    return { tps: round(Number(tps[1]), 1), p50_ms: round(at(50)), p99_ms: round(at(99)), transactions: latencies.length, failed, statements };
  } finally {
    fs.rmSync(logDir, { recursive: true, force: true });
  }
}

