// GET /metrics: the service's Prometheus metrics (prom-client), for operators only.
// Off unless METRICS_TOKEN is set; then answered only to `Authorization: Bearer <token>`.
// In a cluster, the worker that takes the scrape asks the primary, which gathers every
// worker's registry (merged by prom-client's AggregatorRegistry.aggregate): one scrape
// shows the service. Workers still starting, or gone, are left out of that scrape.
// There, what describes a process (prom-client's default metrics: memory, CPU, heap, event
// loop, start time) carries the label `worker` (its slot, 1 to WORKERS, kept by the worker
// started in its place), and the primary adds records_worker_restarts_total{worker}; what
// counts the service's work (requests, cell writes, streams, jobs, the pool) is summed over
// the workers, as one process would count it (docs/decisions.md).
import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import client from 'prom-client';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { query } from '../db/client.js';
import { errors } from './errors.js';
import type { JobMetrics } from '../jobs/registry.js';
import type { WorkBudget } from './heavy-work.js';

const ASK = 'records:metrics:ask';
const ANSWER = 'records:metrics:answer';
const COLLECT = 'records:metrics:collect';
const COLLECTED = 'records:metrics:collected';
/** How long the primary waits for a worker's registry before answering without it. */
const COLLECT_TIMEOUT_MS = 3000;

/** The counters other modules feed; a no-op until installMetrics has run. */
export interface ServiceMetrics extends JobMetrics {
  /** A cell write committed, with the price debited for it (a decimal string like "0.50"). */
  cellWritten(price: string): void;
  /** A live stream opened, or closed (core/live/hub.ts counts them). */
  streamOpened(): void;
  streamClosed(): void;
}

/** A cluster worker's slot (1 to WORKERS; server.ts forks each with its slot), null outside a cluster. */
export const WORKER_SLOT_VARIABLE = 'RECORDS_WORKER_SLOT';
function workerSlot(): string | null {
  if (!cluster.isWorker) return null;
  return process.env[WORKER_SLOT_VARIABLE] || String(cluster.worker?.id ?? process.pid);
}

/** The metrics of this process: one registry, made once (a process runs one app). */
function createInstruments(database: Database, heavy: WorkBudget) {
  const registry = new client.Registry();
  const worker = workerSlot();
  client.collectDefaultMetrics({ register: registry, prefix: 'records_', eventLoopMonitoringPrecision: 20, labels: worker ? { worker } : {} });
  if (worker) {
    // Each worker's series are its own (the label tells them apart): none is merged away, the start time included.
    for (const metric of registry.getMetricsAsArray()) (metric as unknown as { aggregator: string }).aggregator = 'sum';
    // The event loop's lag is measured after a scrape, for the next: with a label it has no sample before that.
    (registry.getSingleMetric('records_nodejs_eventloop_lag_seconds') as client.Gauge | undefined)?.set({ worker }, 0);
  }

  const requests = new client.Counter({
    name: 'records_http_requests_total',
    help: 'HTTP requests answered, by method, route (the route template, or "unmatched") and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'records_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const streams = new client.Gauge({
    name: 'records_live_streams_open',
    help: 'Live streams (server-sent events: notifications, row changes) open now.',
    registers: [registry],
  });
  const cellWrites = new client.Counter({
    name: 'records_cell_writes_total',
    help: 'Cell writes committed (creations and changes).',
    registers: [registry],
  });
  const creditsDebited = new client.Counter({
    name: 'records_credits_debited_total',
    help: 'Credits debited for cell writes, in the organizations\' currency units.',
    registers: [registry],
  });
  const jobRuns = new client.Counter({
    name: 'records_job_runs_total',
    help: 'Runs of the background jobs (jobs/registry.ts), by job and outcome: ok, failed, or idle (nothing was due).',
    labelNames: ['job', 'outcome'],
    registers: [registry],
  });
  const jobDuration = new client.Histogram({
    name: 'records_job_duration_seconds',
    help: 'Time a background job\'s run took (runs that did something: outcome ok or failed), by job.',
    labelNames: ['job'],
    buckets: [0.005, 0.025, 0.1, 0.5, 2.5, 10, 60],
    registers: [registry],
  });
  const jobLastSuccess = new client.Gauge({
    name: 'records_job_last_success_timestamp_seconds',
    help: 'When a background job last ran without failing (Unix time), by job.',
    labelNames: ['job'],
    registers: [registry],
  });
  const poolWait = new client.Histogram({
    name: 'records_db_pool_wait_seconds',
    help: 'Time a query waited for a database connection from the pool (PostgreSQL).',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 3],
    registers: [registry],
  });
  new client.Gauge({
    name: 'records_pglite_memory_bytes',
    help: "The embedded engine's WebAssembly memory (it grows to its largest need and never shrinks). Embedded only.",
    registers: [registry],
    collect() {
      const memory = (database.pglite as unknown as { mod?: { wasmMemory?: WebAssembly.Memory } } | null)?.mod?.wasmMemory;
      if (memory) this.set(memory.buffer.byteLength);
    },
  });
  new client.Gauge({
    name: 'records_db_pool_connections',
    help: 'Database pool connections by state: total, idle, and waiting (queries waiting for one). PostgreSQL only.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      // Both pools of PostgreSQL (db/postgres.ts: custom plans, and the generic plans' pool) together.
      const pools = [database.pool, database.genericPool].filter((p): p is NonNullable<typeof p> => !!p);
      if (!pools.length) return;
      const sum = (of: (p: (typeof pools)[number]) => number) => pools.reduce((n, p) => n + of(p), 0);
      this.set({ state: 'total' }, sum((p) => p.totalCount));
      this.set({ state: 'idle' }, sum((p) => p.idleCount));
      this.set({ state: 'waiting' }, sum((p) => p.waitingCount));
    },
  });
  // The heavy-work budget (core/heavy-work.ts): what large answers and verifications hold
  // now, and how many wait for room (past HEAVY_WORK_WAIT_MS they are answered 503).
  new client.Gauge({
    name: 'records_heavy_work_reserved_bytes',
    help: 'Bytes of the heavy-work budget (HEAVY_WORK_BYTES) reserved now by large answers and verifications.',
    registers: [registry],
    collect() {
      this.set(heavy.inFlight);
    },
  });
  new client.Gauge({
    name: 'records_heavy_work_waiting',
    help: 'Requests waiting for room in the heavy-work budget.',
    registers: [registry],
    collect() {
      this.set(heavy.waiting);
    },
  });
  // Read from the database at scrape time: every process sees the same outbox, so a
  // cluster shows the first process's reading rather than the sum.
  const backlog = new client.Gauge({
    name: 'records_mail_outbox_pending',
    help: 'Mail messages waiting to be delivered (the outbox backlog).',
    aggregator: 'first',
    registers: [registry],
  });
  new client.Gauge({
    name: 'records_mail_outbox_oldest_pending_seconds',
    help: 'Age of the oldest mail message not yet delivered (0 when none waits).',
    aggregator: 'first',
    registers: [registry],
    async collect() {
      const [row] = await query<{ pending: number; oldest: number | null }>(database.db, sql`
        SELECT count(*)::int AS pending,
               extract(epoch FROM (now() - min(date_created)))::float8 AS oldest
          FROM mail_outbox WHERE status = 'pending'`);
      backlog.set(row?.pending ?? 0);
      this.set(row?.oldest ?? 0);
    },
  });

  for (const pool of [database.pool, database.genericPool]) {
    if (!pool) continue;
    // The pool's own `connect` does not say how long it waited: time it around the call.
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { connect: (...args: unknown[]) => unknown }).connect = (...args: unknown[]) => {
      const end = poolWait.startTimer();
      if (typeof args[0] === 'function') {
        const callback = args[0] as (...a: unknown[]) => void;
        return connect((...a: unknown[]) => {
          end();
          callback(...a);
        });
      }
      const pending = connect() as Promise<unknown>;
      pending.then(() => end(), () => end());
      return pending;
    };
  }

  return { registry, requests, duration, streams, cellWrites, creditsDebited, jobRuns, jobDuration, jobLastSuccess };
}

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
function bearerMatches(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}

/** In a worker: asks the primary for every worker's metrics, merged. */
function clusterMetrics(): Promise<{ text: string; contentType: string }> {
  return new Promise((resolve, reject) => {
    const id = `${process.pid}-${Date.now()}-${Math.random()}`;
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error('the primary process did not answer with the metrics in 5 s'));
    }, 5000);
    const onMessage = (message: { type?: string; id?: string; text?: string; contentType?: string; error?: string }) => {
      if (message?.type !== ANSWER || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      if (message.error) reject(new Error(message.error));
      else resolve({ text: message.text ?? '', contentType: message.contentType ?? client.Registry.PROMETHEUS_CONTENT_TYPE });
    };
    process.on('message', onMessage);
    process.send!({ type: ASK, id });
  });
}

/** What the primary of a cluster counts itself: the workers it started again. */
export interface ClusterMetrics {
  workerRestarted(slot: number): void;
}

/**
 * In the primary of a cluster: answers the workers' requests for the merged metrics,
 * with the primary's own counters after the workers'. Call once, before forking.
 */
export function serveClusterMetrics(): ClusterMetrics {
  const own = new client.Registry();
  const restarts = new client.Counter({
    name: 'records_worker_restarts_total',
    help: 'Worker processes the primary started again after one exited (a crash, a kill), by worker slot.',
    labelNames: ['worker'],
    registers: [own],
  });
  // Only workers that listen have built their app, and so their registry.
  const ready = new Set<ClusterWorker>();
  cluster.on('listening', (worker) => ready.add(worker));
  cluster.on('exit', (worker) => ready.delete(worker));
  let asked = 0;
  const collect = (worker: ClusterWorker) => new Promise<client.MetricObjectWithValues<client.MetricValue<string>>[] | null>((resolve) => {
    const id = `collect-${(asked += 1)}`;
    const done = (metrics: client.MetricObjectWithValues<client.MetricValue<string>>[] | null) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(metrics);
    };
    const onMessage = (message: { type?: string; id?: string; metrics?: client.MetricObjectWithValues<client.MetricValue<string>>[] }) => {
      if (message?.type === COLLECTED && message.id === id) done(message.metrics ?? null);
    };
    const onExit = () => done(null);
    const timer = setTimeout(() => done(null), COLLECT_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.once('exit', onExit);
    worker.send({ type: COLLECT, id });
  });
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type !== ASK) return;
    Promise.all([...ready].map(collect)).then(async (gathered) => {
      const merged = client.AggregatorRegistry.aggregate(gathered.filter((m) => m !== null));
      return `${(await merged.metrics()).trimEnd()}\n\n${await own.metrics()}`;
    }).then(
      (text) => worker.send({ type: ANSWER, id: message.id, text, contentType: own.contentType }),
      (err: Error) => worker.send({ type: ANSWER, id: message.id, error: err.message }),
    );
  });
  return {
    workerRestarted(slot) {
      restarts.inc({ worker: String(slot) });
    },
  };
}

/**
 * Records every request's count and latency and serves GET /metrics when a token is
 * configured. Returns the counters the modules feed.
 */
export function installMetrics(app: FastifyInstance, database: Database, heavy: WorkBudget, token: string | null): ServiceMetrics {
  const m = createInstruments(database, heavy);
  // In a cluster the primary collects this registry when a scrape asks (serveClusterMetrics).
  if (cluster.isWorker) {
    process.on('message', (message: { type?: string; id?: string }) => {
      if (message?.type !== COLLECT) return;
      void m.registry.getMetricsAsJSON().catch(() => null).then((metrics) => {
        // The primary may be gone meanwhile: then nobody waits for the answer.
        if (process.connected) process.send!({ type: COLLECTED, id: message.id, metrics }, undefined, undefined, () => {});
      });
    });
  }

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    m.requests.inc(labels);
    m.duration.observe(labels, reply.elapsedTime / 1000);
  });

  app.get('/metrics', {
    config: { auth: false },
    schema: { hide: true },
  }, async (request, reply) => {
    // Without a token the endpoint does not exist, as far as anyone can tell.
    if (!token) throw errors.notFound();
    if (!bearerMatches(request, token)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      return reply.code(401).send({ detail: 'The metrics need Authorization: Bearer <METRICS_TOKEN>.' });
    }
    const { text, contentType } = cluster.isWorker
      ? await clusterMetrics()
      : { text: await m.registry.metrics(), contentType: m.registry.contentType };
    return reply.type(contentType).send(text);
  });

  return {
    cellWritten(price: string) {
      m.cellWrites.inc();
      const amount = Number(price);
      if (amount > 0) m.creditsDebited.inc(amount);
    },
    streamOpened: () => m.streams.inc(),
    streamClosed: () => m.streams.dec(),
    jobRun(job, outcome, seconds) {
      m.jobRuns.inc({ job, outcome });
      if (outcome === 'idle') return;
      m.jobDuration.observe({ job }, seconds);
      if (outcome === 'ok') m.jobLastSuccess.set({ job }, Date.now() / 1000);
    },
  };
}

/** A ServiceMetrics that records nothing (the CLI, and before the app is built). */
export const noMetrics: ServiceMetrics = { cellWritten() {}, streamOpened() {}, streamClosed() {}, jobRun() {} };
