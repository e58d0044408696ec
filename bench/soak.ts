// The soak (issue 6: "peak RSS under 200 MB per process; no growth over a 5-minute soak
// of scenario 2"): the cell PATCH at 10 connections for `seconds`, as consecutive
// autocannon runs of `intervalSeconds`; after each run, the resident set (VmRSS) of every
// server process, the run's rate, latency and errors, and the CPU other processes used.
//
// The rule for "no growth": each process's resident set at the end is at most
// GROWTH_LIMIT above its resident set after the warm-up (the first minute: connection
// pools fill, V8 compiles and sizes its heap).
import { drive, type RequestSpec } from './lib/load.js';
import type { CpuMonitor } from './lib/cpu.js';
import type { Managed, PeakRss, Rss } from './lib/processes.js';

export const GROWTH_LIMIT = 0.1;

export interface SoakInterval {
  /** seconds since the soak started, at the end of this run */
  at_s: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  other_cores: number;
  rss: Rss[];
}

export interface SoakProcess {
  pid: number;
  role: 'primary' | 'worker';
  /** resident set before the load, after the warm-up, at the end (MB) */
  start_rss_mb: number | null;
  warm_rss_mb: number | null;
  end_rss_mb: number;
  peak_rss_mb: number | null;
  /** end ÷ after the warm-up − 1 */
  growth: number | null;
  grew: boolean | null;
}

export interface SoakResult {
  date: string;
  scenario: string;
  connections: number;
  seconds: number;
  interval_seconds: number;
  warmup_seconds: number;
  rule: string;
  requests: number;
  rps: number;
  non2xx: number;
  errors: number;
  status_codes: Record<string, number>;
  intervals: SoakInterval[];
  processes: SoakProcess[];
  peak_rss: PeakRss[];
}

export interface SoakOptions {
  connections: number;
  seconds: number;
  intervalSeconds: number;
  warmupSeconds: number;
}

/** Drives `spec` against `server` for options.seconds, sampling its processes' memory after every interval. */
export async function soak(
  base: string, scenario: { id: string; spec: RequestSpec }, server: Managed, cpu: CpuMonitor, options: SoakOptions,
  log: (line: string) => void,
): Promise<SoakResult> {
  const start = server.rss();
  const intervals: SoakInterval[] = [];
  const statusCodes: Record<string, number> = {};
  const t0 = Date.now();
  while (Date.now() - t0 < options.seconds * 1000 - 500) {
    const seconds = Math.min(options.intervalSeconds, Math.round(options.seconds - (Date.now() - t0) / 1000));
    const mark = cpu.mark();
    const run = await drive(base, scenario.spec, options.connections, Math.max(1, seconds));
    const share = cpu.since(mark);
    for (const [code, n] of Object.entries(run.status_codes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
    const interval: SoakInterval = {
      at_s: Math.round((Date.now() - t0) / 100) / 10, rps: run.rps, p50_ms: run.p50_ms, p99_ms: run.p99_ms, requests: run.requests,
      non2xx: run.non2xx, errors: run.errors + run.timeouts, other_cores: share.other_cores, rss: server.rss(),
    };
    intervals.push(interval);
    log(`  ${String(Math.round(interval.at_s)).padStart(4)} s  ${interval.rps.toFixed(1).padStart(7)}/s  p50 ${interval.p50_ms.toFixed(2)} ms`
      + `  p99 ${interval.p99_ms.toFixed(2)} ms  non-2xx+errors ${interval.non2xx + interval.errors}  others ${interval.other_cores.toFixed(2)} cores`
      + `  RSS ${interval.rss.map((p) => `${p.role} ${p.rss_mb} MB`).join(', ')}`);
  }
  const warm = intervals.find((i) => i.at_s >= options.warmupSeconds) ?? intervals[0];
  const end = intervals[intervals.length - 1];
  const peaks = server.sample();
  const processes: SoakProcess[] = end.rss.map((p) => {
    const warmRss = warm.rss.find((w) => w.pid === p.pid)?.rss_mb ?? null;
    const growth = warmRss === null ? null : Math.round((p.rss_mb / warmRss - 1) * 1000) / 1000;
    return {
      pid: p.pid, role: p.role, start_rss_mb: start.find((s) => s.pid === p.pid)?.rss_mb ?? null, warm_rss_mb: warmRss, end_rss_mb: p.rss_mb,
      peak_rss_mb: peaks.find((s) => s.pid === p.pid)?.peak_rss_mb ?? null, growth, grew: growth === null ? null : growth > GROWTH_LIMIT,
    };
  });
  const requests = intervals.reduce((n, i) => n + i.requests, 0);
  const measuredSeconds = (Date.now() - t0) / 1000;
  return {
    date: new Date(t0).toISOString(),
    scenario: scenario.id,
    connections: options.connections,
    seconds: Math.round(measuredSeconds),
    interval_seconds: options.intervalSeconds,
    warmup_seconds: options.warmupSeconds,
    rule: `a process grew when its RSS at the end exceeds its RSS after ${warm.at_s} s (the first sample past the ${options.warmupSeconds} s warm-up) by more than ${GROWTH_LIMIT * 100}%`,
    requests,
    rps: Math.round((requests / measuredSeconds) * 10) / 10,
    non2xx: intervals.reduce((n, i) => n + i.non2xx, 0),
    errors: intervals.reduce((n, i) => n + i.errors, 0),
    status_codes: statusCodes,
    intervals,
    processes,
    peak_rss: peaks,
  };
}
