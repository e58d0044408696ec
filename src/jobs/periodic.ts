// A task every server process runs on a timer, one run at a time, stopped with the app.
import type { FastifyBaseLogger } from 'fastify';

export class Periodic {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly options: {
    name: string;
    everySeconds: number;
    /** The delay before the first run (default: everySeconds). */
    firstSeconds?: number;
    task: () => Promise<void>;
    log: FastifyBaseLogger;
  }) {}

  start(): void {
    this.stopped = false;
    this.schedule((this.options.firstSeconds ?? this.options.everySeconds) * 1000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.options.task()
        .catch((err: Error) => this.options.log.warn({ error: err.message }, `${this.options.name} failed; retrying at the next run`))
        .finally(() => {
          this.running = null;
          this.schedule(this.options.everySeconds * 1000);
        });
    }, ms);
    this.timer.unref();
  }
}
