import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
import type { MailWorker } from './jobs/mail.js';
import type { JobRegistry } from './jobs/registry.js';
import type { ServiceMetrics } from './core/metrics.js';
import type { LiveHub } from './core/live/hub.js';
import type { FileStorage } from './storage/index.js';
import type { WorkBudget } from './core/heavy-work.js';

/** What every module's routes and services are given: configuration, the database, the background workers. */
export interface AppContext {
  config: Config;
  database: Database;
  /** The database, or inside an If-Match PATCH the request's transaction (core/record-lock.ts). */
  db: Db;
  mail: MailWorker;
  /** The background jobs of this process: a module registers its loops here (jobs/registry.ts). */
  jobs: JobRegistry;
  /** The counters behind GET /metrics that modules feed (cell writes, credits debited). */
  metrics: ServiceMetrics;
  /** The live machinery: the one LISTEN, the open streams, their bound and re-check (core/live/hub.ts). */
  live: LiveHub;
  /** Files' storage (the folder or S3 store), the optional virus scanner and the files' limits (src/storage/). */
  files: FileStorage;
  /** The process's budget of heavy work in flight (large answers, verifications): HEAVY_WORK_BYTES (core/heavy-work.ts). */
  heavy: WorkBudget;
}
