// The job registry: every background loop of a server process is a job registered here
// (issue 23), with its name, its interval, its metrics, its traces and its stop. Nothing
// else in the service starts a timer that outlives a request (a stream's keep-alive is
// the connection's own, see docs/decisions.md).
//
// A job runs in every process, one run at a time; work that must be done once across
// processes is claimed in the database by the job itself (the digest's week in job_runs,
// mail and expired rows with FOR UPDATE SKIP LOCKED). A run:
//   - starts `everySeconds` after the previous one ended (the first after `firstSeconds`),
//     or at once when kick() asks (the mail worker, after a commit that queued mail);
//   - asks `due()` first when the job has one: a cheap check, not traced (a poll every
//     second would otherwise be a trace every second);
//   - is a trace of its own (a root span `job <name>`, its statements inside), never part
//     of the request that kicked it: timers fire in the context the job was registered in;
//   - is counted in records_job_runs_total{job, outcome} (ok, failed, idle: due() said no)
//     and timed in records_job_duration_seconds{job};
//   - failing, is logged and retried at the next run.
// stop() (the app's onClose) clears the timers and waits for the runs in progress.
import { AsyncResource } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { traceJob } from '../core/tracing.js';
import { safeMessage } from '../core/log-redaction.js';

export interface JobSpec {
  /** Unique among the jobs: in log lines, the metrics' `job` label and the span's name. */
  name: string;
  /** Seconds from the end of one run to the start of the next. */
  everySeconds: number;
  /** Seconds from start() to the first run (default: everySeconds). */
  firstSeconds?: number;
  /** Whether there is anything to do now (not traced; default: always). */
  due?: () => boolean | Promise<boolean>;
  /** One run. `{ again: true }`: run again at once (more work is waiting). */
  run: () => Promise<void | { again?: boolean }>;
}

export type JobOutcome = 'ok' | 'failed' | 'idle';

/** What the registry reports each run to (core/metrics.ts). */
export interface JobMetrics {
  jobRun(job: string, outcome: JobOutcome, seconds: number): void;
}

/** A registered job, as its owner holds it. */
export interface Job {
  readonly name: string;
  /** Asks for a run now (or right after the one in progress). */
  kick(): void;
}

class ScheduledJob implements Job {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  /** The timer's callback, bound to the async context of registration (start-up, no request). */
  private readonly fire = AsyncResource.bind(() => this.tick());

  constructor(private readonly spec: JobSpec, private readonly log: FastifyBaseLogger, private readonly metrics: JobMetrics) {}

  get name() {
    return this.spec.name;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule((this.spec.firstSeconds ?? this.spec.everySeconds) * 1000);
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(this.fire, ms);
    this.timer.unref();
  }

  private tick() {
    this.timer = null;
    this.running = this.once().finally(() => {
      this.running = null;
      const more = this.again;
      this.again = false;
      this.schedule(more ? 0 : this.spec.everySeconds * 1000);
    });
  }

  private async once(): Promise<void> {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      if (this.spec.due && !(await this.spec.due())) {
        this.metrics.jobRun(this.spec.name, 'idle', seconds());
        return;
      }
      const result = await traceJob(this.spec.name, this.spec.run);
      if (result?.again) this.again = true;
      this.metrics.jobRun(this.spec.name, 'ok', seconds());
    } catch (err) {
      this.metrics.jobRun(this.spec.name, 'failed', seconds());
      this.log.warn({ job: this.spec.name, error: safeMessage(err) }, `job ${this.spec.name} failed; retrying at the next run`);
    }
  }
}

export class JobRegistry {
  private readonly jobs = new Map<string, ScheduledJob>();
  private started = false;

  constructor(private readonly log: FastifyBaseLogger, private readonly metrics: JobMetrics) {}

  /** Registers a job; it runs once the registry starts (at once, if it has). A name is registered once. */
  register(spec: JobSpec): Job {
    if (this.jobs.has(spec.name)) throw new Error(`the job ${spec.name} is registered twice`);
    if (!(spec.everySeconds > 0)) throw new Error(`the job ${spec.name} needs an interval above 0 seconds`);
    const job = new ScheduledJob(spec, this.log, this.metrics);
    this.jobs.set(spec.name, job);
    if (this.started) job.start();
    return job;
  }

  /** The registered jobs' names, in registration order. */
  get names(): string[] {
    return [...this.jobs.keys()];
  }

  start(): void {
    this.started = true;
    for (const job of this.jobs.values()) job.start();
  }

  /** Stops every job: no run starts from now on; resolves when the runs in progress have ended. */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.jobs.values()].map((job) => job.stop()));
  }
}
