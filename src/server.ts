// The server process: configuration, migrations, cluster workers, graceful shutdown.
import cluster from 'node:cluster';
import { pino, type Logger } from 'pino';
import { loadConfig, settingTypos, ConfigError, type Config } from './config.js';
import { openDatabase } from './db/client.js';
import { buildApp } from './app.js';
import { WORKER_SLOT_VARIABLE, serveClusterMetrics } from './core/metrics.js';
import { serveClusterStreamSlots } from './core/live/slots.js';
import { describeService } from './core/startup.js';
import { startTracing } from './core/tracing.js';

const STARTED = 'records service started';
import { DataFolderInUseError } from './db/folder-lock.js';

async function serve(config: Config): Promise<void> {
  // Tracing first, so the database handles opened below are traced.
  const tracing = config.otelEndpoint ? await startTracing(config.otelEndpoint) : null;
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, statementTimeoutSeconds: config.statementTimeoutSeconds });
  // In a cluster the primary has migrated already; alone, this process does.
  if (!cluster.isWorker) await database.migrate();
  const { app } = await buildApp({ config, database });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    try {
      await app.close();
      await database.close();
      await tracing?.shutdown();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  if (!cluster.isWorker) app.log.info(describeService(config, 1), STARTED);
}

async function primary(config: Config, log: Logger): Promise<void> {
  // PGlite is in-process: one process only.
  const workers = config.databaseUrl ? config.workers : 1;
  if (workers <= 1) return serve(config);
  const clusterMetrics = serveClusterMetrics();
  serveClusterStreamSlots();
  // The start-up line, once: when the first worker listens (they share the port).
  cluster.once('listening', () => log.info(describeService(config, workers), STARTED));
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, statementTimeoutSeconds: config.statementTimeoutSeconds, poolSize: 2 });
  await database.migrate();
  await database.close();
  let stopping = false;
  // A worker that could not drain (forced out after 15 s, or crashed) makes the stop fail too.
  let drained = true;
  // Workers run with a V8 heap limit: without one V8 lets a busy process's heap grow
  // lazily towards gigabytes (peak RSS 220–260 MB at 50 connections, against 150–160 MB
  // with 192 MB, at the same throughput). HEAP_LIMIT_MB=0 leaves V8's default.
  // `npm start` gives the process a 2 MB new space and a heap that grows to twice what a
  // full collection left (--max-semi-space-size, --heap-growing-percent: the embedded
  // server's memory, an export's); the workers keep V8's defaults under their heap limit,
  // which their throughput was measured with.
  const workerArgs = process.execArgv.filter((a) => !a.startsWith('--max-semi-space-size') && !a.startsWith('--heap-growing-percent'));
  cluster.setupPrimary({
    execArgv: config.heapLimitMb > 0
      ? [...workerArgs.filter((a) => !a.startsWith('--max-old-space-size')), `--max-old-space-size=${config.heapLimitMb}`]
      : workerArgs,
  });
  // Each worker has a slot (1 to WORKERS, its metrics' `worker` label); one started again takes the slot of the one it replaces.
  const slots = new Map<number, number>();
  const fork = (slot: number) => slots.set(cluster.fork({ [WORKER_SLOT_VARIABLE]: String(slot) }).id, slot);
  for (let slot = 1; slot <= workers; slot += 1) fork(slot);
  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.get(worker.id)!;
    slots.delete(worker.id);
    if (stopping) {
      if (code !== 0) drained = false;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(drained ? 0 : 1);
      return;
    }
    log.error({ worker_pid: worker.process.pid, worker: slot, code, signal }, 'worker exited; starting another');
    clusterMetrics.workerRestarted(slot);
    fork(slot);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    setTimeout(() => process.exit(1), 20_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGTERM'));
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  if (cluster.isPrimary) {
    const log = pino({ level: config.logLevel === 'silent' ? 'silent' : config.logLevel });
    for (const { name, meant } of settingTypos()) {
      log.warn({ variable: name, setting: meant }, `${name} is not a setting of this service (did you mean ${meant}?); it is ignored`);
    }
    await primary(config, log);
  } else await serve(config);
}

main().catch((err) => {
  // A data folder held by another process: the message says what to do, no stack.
  console.error(err instanceof DataFolderInUseError ? err.message : err);
  process.exit(1);
});
