// Driving a scenario with autocannon (in this process): a warm-up, then measured runs,
// reporting the median requests/s and latency percentiles of the runs.
import autocannon from 'autocannon';

/** One kind of request of a scenario; `setup` picks its random path or body per request. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called before each request: returns the path, body or headers to send this time. */
  setup?: () => { path?: string; body?: string; headers?: Record<string, string> };
}

export interface RunResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  requests: number;
  seconds: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  status_codes: Record<string, number>;
}

export interface Measurement {
  connections: number;
  runs: RunResult[];
  /** medians over the runs */
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** summed over the measured runs (the warm-up is not counted) */
  non2xx: number;
  errors: number;
  status_codes: Record<string, number>;
}

export interface Plan {
  warmupSeconds: number;
  seconds: number;
  runs: number;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * One autocannon run of `seconds` at `connections`. Latencies are taken from every
 * response (autocannon's own histogram rounds to whole milliseconds).
 */
export async function drive(url: string, spec: RequestSpec, connections: number, seconds: number): Promise<RunResult> {
  const headers = { ...(spec.method !== 'GET' ? { 'content-type': 'application/json' } : {}), ...spec.headers };
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    // Many requests of one connection in flight would hide latency: one at a time.
    pipelining: 1,
    timeout: 30,
    requests: [{
      method: spec.method,
      path: spec.path,
      headers,
      body: spec.body,
      // autocannon calls setupRequest whenever the key is present.
      ...(spec.setup ? {
        setupRequest: (request: Record<string, unknown>) => {
          const next = spec.setup!();
          if (next.path !== undefined) request.path = next.path;
          if (next.body !== undefined) request.body = next.body;
          if (next.headers !== undefined) request.headers = { ...(request.headers as Record<string, string>), ...next.headers };
          return request;
        },
      } : {}),
    }],
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count] = responseTime;
    count += 1;
  });
  const result = await instance;
  const sorted = latencies.slice(0, count).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const statusCodes: Record<string, number> = {};
  for (const [code, { count: n }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = n;
  return {
    rps: round(count / result.duration, 1),
    p50_ms: round(percentile(sorted, 50)),
    p99_ms: round(percentile(sorted, 99)),
    mean_ms: round(sum / Math.max(count, 1)),
    requests: count,
    seconds: result.duration,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: statusCodes,
  };
}

/** Medians of the runs' figures; errors and status codes summed. */
export function summarize(runs: RunResult[], connections: number): Measurement {
  const statusCodes: Record<string, number> = {};
  for (const run of runs) for (const [code, n] of Object.entries(run.status_codes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    connections,
    runs,
    rps: round(median(runs.map((r) => r.rps)), 1),
    p50_ms: round(median(runs.map((r) => r.p50_ms))),
    p99_ms: round(median(runs.map((r) => r.p99_ms))),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors + r.timeouts, 0),
    status_codes: statusCodes,
  };
}
