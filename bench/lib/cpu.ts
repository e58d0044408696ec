// Who used the CPU during a measurement. The machine is shared (other sessions build and
// run test suites on it), so each figure is reported with the CPU that processes other
// than this benchmark's took meanwhile: a noisy neighbour shows instead of hiding.
//
// Every 500 ms the monitor reads /proc: the machine's busy time, and the CPU time of the
// processes that are this benchmark's (this process and its descendants: the servers,
// their workers, pgbench) and of the PostgreSQL backends of the benchmark's database.
// Other processes' share is the machine's busy time minus ours, so even short-lived
// processes (a compiler run) are counted. PostgreSQL's shared processes (WAL writer,
// checkpointer …) are counted as ours: our writes keep them busy.
import fs from 'node:fs';

const TICKS = 100; // USER_HZ, 100 on Linux

interface Sample {
  at: number;
  busy: number; // ticks, whole machine
  total: number;
  ours: number; // ticks, ours (cumulative, over every process ever seen)
}

export interface CpuShare {
  /** cores the whole machine used on average (0 … cores) */
  busy_cores: number;
  /** cores processes other than this benchmark's used on average */
  other_cores: number;
  seconds: number;
}

export class CpuMonitor {
  private timer: NodeJS.Timeout | null = null;
  /** last seen cumulative CPU ticks of each of our processes */
  private ourTicks = new Map<number, number>();
  private last: Sample | null = null;

  constructor(private readonly database: () => string | null) {}

  start(): void {
    this.last = this.read();
    this.timer = setInterval(() => { this.last = this.read(); }, 500);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A mark to measure from. */
  mark(): Sample {
    this.last = this.read();
    return this.last;
  }

  /** The CPU used since `from`. */
  since(from: Sample): CpuShare {
    const to = this.mark();
    const seconds = (to.at - from.at) / 1000;
    const cores = (to.total - from.total) / TICKS / Math.max(seconds, 1e-9);
    const scale = (ticks: number) => Math.round((ticks / Math.max(to.total - from.total, 1)) * cores * 100) / 100;
    const busy = to.busy - from.busy;
    const ours = to.ours - from.ours;
    return { busy_cores: scale(busy), other_cores: scale(Math.max(0, busy - ours)), seconds: Math.round(seconds * 10) / 10 };
  }

  /**
   * Waits until processes other than ours have used less than `maxCores` over a whole
   * `windowMs`, for at most `timeoutMs`; returns whether the machine became quiet.
   */
  async waitQuiet(maxCores: number, windowMs: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const from = this.mark();
      await new Promise((resolve) => setTimeout(resolve, windowMs));
      if (this.since(from).other_cores < maxCores) return true;
      if (Date.now() > deadline) return false;
    }
  }

  private read(): Sample {
    const [cpu] = fs.readFileSync('/proc/stat', 'utf8').split('\n');
    const fields = cpu.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
    const busy = user + nice + system + irq + softirq + (steal || 0);
    const total = busy + idle + iowait;

    const parents = new Map<number, number>();
    const ticks = new Map<number, number>();
    const names = new Map<number, string>();
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // gone
      }
      const close = stat.lastIndexOf(')');
      const rest = stat.slice(close + 2).split(' ');
      parents.set(pid, Number(rest[1]));
      ticks.set(pid, Number(rest[11]) + Number(rest[12]));
      names.set(pid, stat.slice(stat.indexOf('(') + 1, close));
    }
    const database = this.database();
    const isOurs = (pid: number): boolean => {
      for (let p = pid, hops = 0; p > 1 && hops < 64; p = parents.get(p) ?? 0, hops += 1) {
        if (p === process.pid) return true;
      }
      if (names.get(pid) !== 'postgres') return false;
      let title = '';
      try {
        title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        return false;
      }
      // "postgres: 15/main: <user> <database> <client> <state>" for a backend; shared processes have no database.
      const backend = /^postgres: (?:[^:]+: )?(\S+) (\S+) \S+\(\d+\)/.exec(title) ?? /^postgres: (?:[^:]+: )?(\S+) (\S+) \[local\]/.exec(title);
      if (!backend) return true; // checkpointer, WAL writer, autovacuum …
      return database !== null && backend[2] === database;
    };
    for (const [pid, value] of ticks) {
      if (isOurs(pid)) this.ourTicks.set(pid, Math.max(value, this.ourTicks.get(pid) ?? 0));
    }
    let ours = 0;
    for (const value of this.ourTicks.values()) ours += value;
    return { at: Date.now(), busy, total, ours };
  }
}
