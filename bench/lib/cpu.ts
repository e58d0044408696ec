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

/** Where our CPU goes: this process (autocannon), the servers it started, pgbench, PostgreSQL. */
export type Group = 'load_generator' | 'servers' | 'pgbench' | 'postgresql';
const GROUPS: Group[] = ['load_generator', 'servers', 'pgbench', 'postgresql'];

interface Sample {
  at: number;
  busy: number; // ticks, whole machine
  total: number;
  ours: Record<Group, number>; // ticks (cumulative, over every process ever seen)
}

/** A point in time to measure from (CpuMonitor.mark). */
export type Mark = Sample;

export interface CpuShare {
  /** cores the whole machine used on average (0 … cores) */
  busy_cores: number;
  /** cores processes other than this benchmark's used on average */
  other_cores: number;
  /** cores each of our groups used on average */
  ours: Record<Group, number>;
  seconds: number;
}

/** CPU time per request (or transaction) of each of our groups, in ms, over a measurement. */
export function costPerRequest(share: CpuShare, requests: number): Record<Group, number> {
  const cost = {} as Record<Group, number>;
  for (const group of GROUPS) cost[group] = Math.round(((share.ours[group] * share.seconds * 1000) / Math.max(requests, 1)) * 100) / 100;
  return cost;
}

/** Several measurements' shares as one: averages weighted by their durations. */
export function combineShares(shares: CpuShare[]): CpuShare {
  const seconds = shares.reduce((n, s) => n + s.seconds, 0) || 1e-9;
  const weighted = (pick: (s: CpuShare) => number) => Math.round((shares.reduce((n, s) => n + pick(s) * s.seconds, 0) / seconds) * 100) / 100;
  const ours = {} as Record<Group, number>;
  for (const group of GROUPS) ours[group] = weighted((s) => s.ours[group]);
  return { busy_cores: weighted((s) => s.busy_cores), other_cores: weighted((s) => s.other_cores), ours, seconds: Math.round(seconds * 10) / 10 };
}

export class CpuMonitor {
  private timer: NodeJS.Timeout | null = null;
  /** last seen cumulative CPU ticks and group of each of our processes */
  private ourTicks = new Map<number, { ticks: number; group: Group }>();
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
  mark(): Mark {
    this.last = this.read();
    return this.last;
  }

  /** The CPU used since `from`. */
  since(from: Mark): CpuShare {
    const to = this.mark();
    const seconds = (to.at - from.at) / 1000;
    const cores = (to.total - from.total) / TICKS / Math.max(seconds, 1e-9);
    const scale = (ticks: number) => Math.round((ticks / Math.max(to.total - from.total, 1)) * cores * 100) / 100;
    const busy = to.busy - from.busy;
    let ours = 0;
    const groups = {} as Record<Group, number>;
    for (const group of GROUPS) {
      ours += to.ours[group] - from.ours[group];
      groups[group] = scale(to.ours[group] - from.ours[group]);
    }
    return { busy_cores: scale(busy), other_cores: scale(Math.max(0, busy - ours)), ours: groups, seconds: Math.round(seconds * 10) / 10 };
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
    const groupOf = (pid: number): Group | null => {
      if (pid === process.pid) return 'load_generator';
      for (let p = parents.get(pid) ?? 0, hops = 0; p > 1 && hops < 64; p = parents.get(p) ?? 0, hops += 1) {
        if (p === process.pid) return names.get(pid) === 'pgbench' ? 'pgbench' : 'servers';
      }
      if (names.get(pid) !== 'postgres') return null;
      let title = '';
      try {
        title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        return null;
      }
      // A backend just forked still has the postmaster's command line: decide at the next sample.
      if (!title.startsWith('postgres: ') && names.get(parents.get(pid) ?? 0) === 'postgres') return null;
      // "postgres: 15/main: <user> <database> <client> <state>" for a backend; shared processes have no database.
      const backend = /^postgres: (?:[^:]+: )?(\S+) (\S+) \S+\(\d+\)/.exec(title) ?? /^postgres: (?:[^:]+: )?(\S+) (\S+) \[local\]/.exec(title);
      if (!backend) return 'postgresql'; // checkpointer, WAL writer, autovacuum …
      // The benchmark's database, and its own others (`<database>_limit`: the minimal transaction's).
      return database !== null && (backend[2] === database || backend[2].startsWith(`${database}_`)) ? 'postgresql' : null;
    };
    for (const [pid, value] of ticks) {
      const known = this.ourTicks.get(pid);
      if (known) {
        known.ticks = Math.max(known.ticks, value);
        continue;
      }
      const group = groupOf(pid);
      if (group) this.ourTicks.set(pid, { ticks: value, group });
    }
    const ours = { load_generator: 0, servers: 0, pgbench: 0, postgresql: 0 } as Record<Group, number>;
    for (const { ticks: value, group } of this.ourTicks.values()) ours[group] += value;
    return { at: Date.now(), busy, total, ours };
  }
}
