// Measuring several contenders (scenarios and the limits they are compared with) in
// interleaved rounds: every contender's warm-up, then round 1 of each, round 2 of each …
// The machine is shared and its background load drifts; interleaving puts a scenario
// and its limit under the same conditions, instead of minutes apart.
import { summarize, type Measurement, type Plan, type RunResult } from './load.js';
import { combineShares, costPerRequest, type CpuMonitor, type CpuShare, type Group } from './cpu.js';

export interface Contender {
  id: string;
  /** One run of `seconds` at `connections`. */
  run(connections: number, seconds: number): Promise<RunResult>;
  /** Called before each run, e.g. to wait until PostgreSQL has connections to spare. */
  before?(connections: number): Promise<void>;
}

export interface Measured extends Measurement {
  cpu: CpuShare;
  /** CPU time per request (or transaction) of each group, ms */
  cpu_ms_per_request: Record<Group, number>;
}

export interface RoundHooks {
  cpu: CpuMonitor;
  /** Called before each measured run (--wait-quiet). */
  quiet(): Promise<void>;
  /** Called after each measured run. */
  after?(contender: Contender, run: RunResult, share: CpuShare): void;
}

/** Warm-up of each contender, then `plan.runs` rounds of one run of each; medians per contender. */
export async function measureInRounds(contenders: Contender[], connections: number, plan: Plan, hooks: RoundHooks): Promise<Map<string, Measured>> {
  if (plan.warmupSeconds > 0) {
    for (const contender of contenders) {
      await contender.before?.(connections);
      await contender.run(connections, plan.warmupSeconds);
    }
  }
  const measured = new Map<string, { runs: RunResult[]; shares: CpuShare[] }>(contenders.map((c) => [c.id, { runs: [], shares: [] }]));
  for (let round = 0; round < plan.runs; round += 1) {
    for (const contender of contenders) {
      await hooks.quiet();
      await contender.before?.(connections);
      const mark = hooks.cpu.mark();
      const run = await contender.run(connections, plan.seconds);
      const share = hooks.cpu.since(mark);
      measured.get(contender.id)!.runs.push(run);
      measured.get(contender.id)!.shares.push(share);
      hooks.after?.(contender, run, share);
    }
  }
  const results = new Map<string, Measured>();
  for (const [id, { runs, shares }] of measured) {
    const cpu = combineShares(shares);
    results.set(id, { ...summarize(runs, connections), cpu, cpu_ms_per_request: costPerRequest(cpu, runs.reduce((n, r) => n + r.requests, 0)) });
  }
  return results;
}
