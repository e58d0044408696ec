// Issue 6: "a page costs the same with 1,000 or 100,000 rows in the table (within 20%),
// apart from the count". Through HTTP the row list also answers its `count`, which must
// cost more on the big table; so the list's page query and its count query are timed on
// their own in PostgreSQL too: the statements of one request as the service sent them
// (captured by the wire counter with their values), each run with EXPLAIN (ANALYZE) in
// interleaved rounds, small table and big table in turn.
import pg from 'pg';
import { median } from './lib/load.js';
import type { Statement } from './lib/wire-counter.js';

/** The row list's statements of one request: the page, and the count when it is a statement of its own. */
export interface ListStatements {
  page: Statement;
  count: Statement | null;
}

export interface StatementCost {
  sql: string;
  params: (string | null)[];
  /** medians over the runs, ms: PostgreSQL plans every execution (plan_cache_mode=force_custom_plan) */
  planning_ms: number;
  execution_ms: number;
  total_ms: number;
  runs: number;
  /** the plan's nodes, outermost first (the last run's), e.g. "Limit > Nested Loop > Index Scan on record_rows_table_order_idx" */
  plan: string;
}

export interface PageCostResult {
  small_rows: number;
  big_rows: number;
  runs: number;
  pages: {
    page: number;
    small: { page: StatementCost; count: StatementCost | null };
    big: { page: StatementCost; count: StatementCost | null };
  }[];
}

/**
 * Picks the page query (reads record_rows, has a LIMIT) and the count query (reads
 * record_rows, counts) out of the statements of one row-list request. A page that
 * carries its own count (`count(*) OVER ()` or a count subquery) leaves `count` null.
 */
export function listStatements(statements: Statement[]): ListStatements {
  const reading = statements.filter((s) => s.kind === 'extended' && /\brecord_rows\b/.test(s.sql));
  const page = reading.find((s) => /\blimit\b/i.test(s.sql));
  if (!page) {
    throw new Error(`no page query of record_rows among the request's statements:\n${statements.map((s) => s.sql.slice(0, 200)).join('\n')}`);
  }
  const count = reading.find((s) => s !== page && /\bcount\s*\(/i.test(s.sql)) ?? null;
  return { page, count };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** A plan's nodes depth first: "Limit > Nested Loop > Index Scan on record_rows_table_order_idx > …". */
function planNodes(node: PlanNode): string {
  const name = node['Node Type'] + (node['Index Name'] ? ` on ${node['Index Name']}` : node['Relation Name'] ? ` on ${node['Relation Name']}` : '');
  return [name, ...(node.Plans ?? []).map(planNodes)].join(' > ');
}

/**
 * Runs each statement `runs` times (after one round not counted) with EXPLAIN (ANALYZE,
 * TIMING OFF): the statements in turn within each round, so that all meet the same
 * background load. Returns the median planning and execution time of each.
 */
export async function timeStatements(databaseUrl: string, statements: Statement[], runs: number): Promise<StatementCost[]> {
  // Planned for their values, as the service's connections plan them.
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c plan_cache_mode=force_custom_plan' });
  await client.connect();
  const times = statements.map(() => ({ planning: [] as number[], execution: [] as number[], plan: '' }));
  try {
    for (let r = -1; r < runs; r += 1) {
      for (const [i, statement] of statements.entries()) {
        const { rows: [{ 'QUERY PLAN': [plan] }] } = await client.query(
          `EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${statement.sql}`, statement.params ?? []);
        if (r < 0) continue;
        times[i].planning.push(plan['Planning Time']);
        times[i].execution.push(plan['Execution Time']);
        times[i].plan = planNodes(plan.Plan);
      }
    }
  } finally {
    await client.end();
  }
  return statements.map((statement, i) => {
    const planning = median(times[i].planning);
    const execution = median(times[i].execution);
    return {
      sql: statement.sql, params: statement.params ?? [], planning_ms: round(planning), execution_ms: round(execution),
      total_ms: round(median(times[i].planning.map((p, j) => p + times[i].execution[j]))), runs, plan: times[i].plan,
    };
  });
}

/** Times the page and count statements of each captured request (small and big table, by page). */
export async function measurePageCost(
  databaseUrl: string, captured: { page: number; small: ListStatements; big: ListStatements }[],
  sizes: { small: number; big: number }, runs: number,
): Promise<PageCostResult> {
  const statements: Statement[] = [];
  for (const { small, big } of captured) statements.push(small.page, big.page, ...(small.count && big.count ? [small.count, big.count] : []));
  const costs = await timeStatements(databaseUrl, statements, runs);
  const costOf = (s: Statement | null) => (s ? costs[statements.indexOf(s)] ?? null : null);
  return {
    small_rows: sizes.small,
    big_rows: sizes.big,
    runs,
    pages: captured.map(({ page, small, big }) => ({
      page,
      small: { page: costOf(small.page)!, count: costOf(small.count) },
      big: { page: costOf(big.page)!, count: costOf(big.count) },
    })),
  };
}
