// What PostgreSQL spends planning the statements of one list request, under the pool's
// former `plan_cache_mode = force_custom_plan` against `auto` (issue 23): each statement a
// request sent (captured by the wire counter with its values) is prepared in one session
// and run with EXPLAIN (ANALYZE, SUMMARY) after 6 executions, in each mode in turns;
// medians of 7 runs. Under `auto` PostgreSQL keeps a generic plan after five custom ones
// when it costs no more, and then plans nothing.
//
// Then the skew check: a statement two scenarios share (the row list of the 4- or 100-row
// table and of the big one) is prepared under `auto`, run 6 times with one scenario's
// values and timed with the other's, so a generic plan made for the small table serves the
// big one (and back).
//
//   npm run -s build && node --import tsx bench/plan-cost.ts [--quick-seed] [scenario id prefix …]
//   --quick-seed: the quick benchmark's seed (10,000 rows, a 2,000-version row) instead of a tiny one
import pg from 'pg';
import { withCountedServer } from './lib/counted-server.js';
import type { Statement } from './lib/wire-counter.js';
import { median } from './lib/load.js';
import { QUICK_SIZE, type SeedSize } from './seed.js';
import {
  cellList, gridList, inboxList, personnelList, rowList, stepList, versionList, workflowList, type Scenario,
} from './scenarios.js';

const RUNS = 7;
const SIZE: SeedSize = {
  personnel: 20, projects: 2, tables: 3, columnsPerTable: 2, rows: 40, smallTableRows: 4, longRowVersions: 600, recipients: 5,
  postRows: 10, workflows: 2, stepsPerWorkflow: 2,
};
const MODES = ['force_custom_plan', 'auto', 'force_generic_plan'] as const;

async function main() {
  const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  await withCountedServer('plancost', process.argv.includes('--quick-seed') ? QUICK_SIZE : SIZE, async ({ base, seed, counter, databaseUrl }) => {
    const scenarios: Scenario[] = [
      personnelList(seed, 'list'), inboxList(seed), cellList(seed), rowList(seed, 'small'), rowList(seed, 'big'), gridList(seed), versionList(seed),
      workflowList(seed), stepList(seed),
    ].filter((s) => !only.length || only.some((prefix) => s.id.startsWith(prefix)));
    const captured = new Map<string, Statement[]>();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      console.log(`scenario: statement | planning ms ${MODES.join(' → ')} | execution ms ${MODES.join(' → ')}`);
      for (const scenario of scenarios) {
        await send(base, scenario);
        counter.reset();
        await send(base, scenario);
        const totals = Object.fromEntries(MODES.map((m) => [m, 0])) as Record<(typeof MODES)[number], number>;
        for (const [i, s] of counter.statements.entries()) {
          if (s.kind !== 'extended' || !s.params?.length) continue;
          const values = s.params.map((p) => (p === null ? 'NULL' : client.escapeLiteral(p))).join(', ');
          const timed: Record<string, { planning: number[]; execution: number[] }> = {};
          for (const mode of MODES) {
            // A fresh statement per mode: auto's count of custom plans starts at zero.
            const name = `plan_cost_${i}_${mode}`;
            await client.query(`SET plan_cache_mode = ${mode}`);
            await client.query(`PREPARE ${name} AS ${s.sql}`);
            for (let k = 0; k < 6; k += 1) await client.query(`EXECUTE ${name}(${values})`);
            timed[mode] = { planning: [], execution: [] };
            for (let k = 0; k < RUNS; k += 1) {
              const { rows } = await client.query(`EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) EXECUTE ${name}(${values})`);
              const plan = rows[0]['QUERY PLAN'][0] as { 'Planning Time': number; 'Execution Time': number };
              timed[mode].planning.push(plan['Planning Time']);
              timed[mode].execution.push(plan['Execution Time']);
            }
            await client.query(`DEALLOCATE ${name}`);
            totals[mode] += median(timed[mode].planning) + median(timed[mode].execution);
          }
          const f = (what: 'planning' | 'execution') => MODES.map((mode) => median(timed[mode][what]).toFixed(3)).join(' → ');
          console.log(`${scenario.id}: ${s.sql.replace(/\s+/g, ' ').trim().slice(0, 60)}… | ${f('planning')} | ${f('execution')}`);
        }
        console.log(`${scenario.id}: planning + execution per request, ms: ${MODES.map((m) => totals[m].toFixed(3)).join(' → ')}`);
        captured.set(scenario.id, counter.statements.filter((s) => s.kind === 'extended' && s.params?.length));
        // PLAN_COST_DUMP=DIR: each scenario's statements and values as JSON, to try variants of them by hand.
        if (process.env.PLAN_COST_DUMP) {
          const { writeFileSync, mkdirSync } = await import('node:fs');
          mkdirSync(process.env.PLAN_COST_DUMP, { recursive: true });
          writeFileSync(`${process.env.PLAN_COST_DUMP}/${scenario.id}.json`, JSON.stringify(captured.get(scenario.id), null, 2));
        }
      }
      // The skew check: warmed with one scenario's values, timed with the other's.
      for (const [a, b] of [['7-row-list-small', '7-row-list-big'], ['7-row-list-big', '7-row-list-small']]) {
        const warm = captured.get(a);
        const timed = captured.get(b);
        if (!warm || !timed) continue;
        for (const [i, s] of warm.entries()) {
          const other = timed.find((t) => t.sql === s.sql);
          if (!other || other.params!.join() === s.params!.join()) continue;
          const literal = (params: (string | null)[]) => params.map((p) => (p === null ? 'NULL' : client.escapeLiteral(p))).join(', ');
          const result: Record<string, number> = {};
          for (const mode of MODES) {
            const name = `plan_skew_${i}_${mode}`;
            await client.query(`SET plan_cache_mode = ${mode}`);
            await client.query(`PREPARE ${name} AS ${s.sql}`);
            for (let k = 0; k < 6; k += 1) await client.query(`EXECUTE ${name}(${literal(s.params!)})`);
            const runs: number[] = [];
            for (let k = 0; k < RUNS; k += 1) {
              const { rows } = await client.query(`EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) EXECUTE ${name}(${literal(other.params!)})`);
              const plan = rows[0]['QUERY PLAN'][0] as { 'Planning Time': number; 'Execution Time': number };
              runs.push(plan['Planning Time'] + plan['Execution Time']);
            }
            await client.query(`DEALLOCATE ${name}`);
            result[mode] = median(runs);
          }
          console.log(`skew: warmed on ${a}, run on ${b}: ${s.sql.replace(/\s+/g, ' ').trim().slice(0, 50)}… planning + execution ms ${MODES.map((m) => result[m].toFixed(3)).join(' → ')}`);
        }
      }
    } finally {
      await client.end();
    }
  });
}

async function send(base: string, scenario: Scenario): Promise<void> {
  const next = scenario.spec.setup?.() ?? {};
  const body = next.body ?? scenario.spec.body;
  const response = await fetch(base + (next.path ?? scenario.spec.path), {
    method: scenario.spec.method,
    headers: { ...scenario.spec.headers, ...next.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${scenario.id} answered ${response.status}: ${text.slice(0, 300)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
