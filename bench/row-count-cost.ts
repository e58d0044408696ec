// Issue 15, target 4: a list over a 100,000-row table costs within 2x of the same list over
// a 1,000-row table, count included. Seeds a fresh database with a 1,000-row and a
// 99,001-row table (and a 10,000-version row), captures the statements the service sends
// for the row list, the grid and a row's versions (through the wire counter, with their
// values), and times each with EXPLAIN ANALYZE in interleaved rounds (bench/page-cost.ts),
// beside the count statement the row list sent before the row counters (COUNT(*) over the
// table's rows), for the before/after ratio in one run.
//
//   npm run -s build && node --import tsx bench/row-count-cost.ts [runs]
import { withCountedServer } from './lib/counted-server.js';
import type { Statement } from './lib/wire-counter.js';
import type { SeedSize } from './seed.js';
import { timeStatements } from './page-cost.js';

const RUNS = Number(process.argv[2] ?? 15);
const SIZE: SeedSize = {
  personnel: 20, projects: 20, tables: 3, columnsPerTable: 1, rows: 100_000, smallTableRows: 1_000, longRowVersions: 10_000, recipients: 2,
  postRows: 10, workflows: 1, stepsPerWorkflow: 1,
};

async function main() {
  const started = Date.now();
  await withCountedServer('rowcount', SIZE, async ({ base, seed, counter, pool, databaseUrl }) => {
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s: tables of ${seed.smallTable.rows} and ${seed.bigTable.rows} rows`);
    const shortRow = (await pool.query(`SELECT sid FROM record_rows WHERE table_sid = $1 ORDER BY sid LIMIT 1`, [seed.smallTable.sid])).rows[0].sid;

    /** The statements (values included) of one GET, after one not captured; the credential's query left out. */
    const capture = async (pathAndQuery: string): Promise<Statement[]> => {
      const get = async () => {
        const res = await fetch(base + pathAndQuery, { headers: { token: seed.token } });
        if (res.status !== 200) throw new Error(`${pathAndQuery} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        return res.json() as Promise<{ count: number }>;
      };
      await get();
      counter.reset();
      const answer = await get();
      const statements = counter.statements.filter((s) => s.kind === 'extended' && !/FROM credentials/.test(s.sql));
      console.log(`${pathAndQuery.slice(0, 100)}: count ${answer.count}, ${statements.length} statement(s) after the credential's`);
      return statements;
    };
    const org = seed.orgSid;
    const requests = {
      'row list, 1,000 rows': `/tables/row/list/organization/${org}/list/?table__sid=${seed.smallTable.sid}`,
      'row list, 99,001 rows': `/tables/row/list/organization/${org}/list/?table__sid=${seed.bigTable.sid}`,
      'grid, 1,000 rows': `/tables/row/list/table/${seed.smallTable.sid}/grid/?page_size=50`,
      'grid, 99,001 rows': `/tables/row/list/table/${seed.bigTable.sid}/grid/?page_size=50`,
      'grid is_archived=false, 1,000 rows': `/tables/row/list/table/${seed.smallTable.sid}/grid/?page_size=50&is_archived=false`,
      'grid is_archived=false, 99,001 rows': `/tables/row/list/table/${seed.bigTable.sid}/grid/?page_size=50&is_archived=false`,
      'versions of a 1-version row': `/tables/version/list/organization/${org}/list/?row__sid=${shortRow}`,
      [`versions of the ${SIZE.longRowVersions.toLocaleString('en')}-version row`]: `/tables/version/list/organization/${org}/list/?row__sid=${seed.longRow}`,
    };
    const captured: [string, Statement][] = [];
    for (const [label, url] of Object.entries(requests)) {
      for (const [i, s] of (await capture(url)).entries()) captured.push([`${label}${i ? ` (statement ${i + 1})` : ''}`, s]);
    }
    // The row list's count before the row counters, as the service sent it.
    const before = `select count(*) from "record_rows" where ("record_rows"."organization_sid" = $1 and "record_rows"."table_sid" = $2 and TRUE)`;
    captured.push(['before: the row list\'s count, 1,000 rows', { kind: 'extended', sql: before, params: [org, seed.smallTable.sid] }]);
    captured.push(['before: the row list\'s count, 99,001 rows', { kind: 'extended', sql: before, params: [org, seed.bigTable.sid] }]);
    const costs = await timeStatements(databaseUrl, captured.map(([, s]) => s), RUNS);
    console.log(`\nmedian of ${RUNS} EXPLAIN ANALYZE runs (planning + execution, ms):`);
    for (const [i, [label]] of captured.entries()) console.log(`  ${label.padEnd(48)} ${costs[i].total_ms.toFixed(3).padStart(8)}   ${costs[i].plan.slice(0, 150)}`);
  }, (line) => console.log(line));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
