// The benchmark's results: their shape (bench/results/*.json), the comparison of each
// scenario with its limit, the issue's targets, and the table printed at the end.
import type { Measurement } from './lib/load.js';
import type { PgbenchMeasurement } from './limits/pgbench.js';
import type { PeakRss } from './lib/processes.js';
import type { CpuShare, Group } from './lib/cpu.js';
import type { PageCostResult, StatementCost } from './page-cost.js';
import { GROWTH_LIMIT, type SoakResult } from './soak.js';
import type { FrontendResult } from './frontend.js';

export interface ScenarioResult extends Measurement {
  id: string;
  title: string;
  database: 'postgresql' | 'embedded';
  /** 'n/a (not built)' when the service does not have the endpoint yet */
  status: 'measured' | string;
  cpu?: CpuShare;
  /** CPU time per request of the servers, PostgreSQL, the load generator (ms) */
  cpu_ms_per_request?: Record<Group, number>;
  limit?: { name: string; rps: number; p50_ms: number; p99_ms: number } | null;
  /** requests/s ÷ the limit's requests (or transactions) per second */
  ratio?: number | null;
}

export interface LimitResult extends Measurement {
  id: 'bare' | 'select1';
  cpu?: CpuShare;
  cpu_ms_per_request?: Record<Group, number>;
}

export type PgbenchResult = PgbenchMeasurement & { cpu?: CpuShare; cpu_ms_per_request?: Record<Group, number> };

export interface Target {
  target: string;
  measured: string;
  holds: boolean | null;
}

export interface Results {
  mode: 'full' | 'quick';
  date: string;
  seconds: number;
  machine: Record<string, unknown>;
  config: Record<string, unknown>;
  seed: Record<string, unknown>;
  scenarios: ScenarioResult[];
  verify: Record<string, unknown> | null;
  /** pgbench_minimal: issue 15's write limit, the minimal transaction of the spec's cell write (bench/limits/minimal/) */
  limits: { http: LimitResult[]; pgbench: PgbenchResult[]; pgbench_full: PgbenchResult[]; pgbench_minimal?: PgbenchResult[] };
  peak_rss: Record<string, PeakRss[]>;
  round_trips: Record<string, unknown>;
  /** scenario 7: the row list's page and count queries timed in PostgreSQL, small table vs big table */
  page_cost?: PageCostResult | null;
  /** `--soak`: written by its own run, merged into the file (it keeps its own date) */
  soak?: SoakResult | null;
  /** the web app in Chromium (issue 14): the grid's interactive time, scrolling, a cell edit, the bundle */
  frontend?: FrontendResult | { status: string } | null;
  /** issue 15, target 3: scenario 2 (one organization) beside 2s (10 organizations) at each number of connections */
  org_spread?: OrgSpread[];
  /** issue 15, target 6: the embedded server's peak RSS (VmHWM, MB) at each stage, and the targets */
  embedded_memory?: EmbeddedMemory | null;
  targets: Target[];
}

export interface OrgSpread {
  connections: number;
  one_org_rps: number;
  ten_orgs_rps: number;
  /** one_org_rps / ten_orgs_rps: the target is ≥ 0.8 */
  ratio: number;
}

/** Scenario 2 (one organization's cells) beside 2s (cells of 10 organizations), per number of connections. */
export function orgSpread(results: Pick<Results, 'scenarios'>): OrgSpread[] {
  const pg = results.scenarios.filter((s) => s.database === 'postgresql' && s.status === 'measured');
  return pg.filter((s) => s.id === '2s-cell-patch-10-orgs').flatMap((ten) => {
    const one = pg.find((s) => s.id === '2-cell-patch' && s.connections === ten.connections);
    return one ? [{ connections: ten.connections, one_org_rps: one.rps, ten_orgs_rps: ten.rps, ratio: Math.round((one.rps / ten.rps) * 1000) / 1000 }] : [];
  });
}

export interface EmbeddedMemory {
  /** the first start on a new data folder, until /health/ answers */
  first_start_mb: number;
  /** the same process after seeding the embedded organization through HTTP (not a target) */
  seeding_mb: number;
  /** restarted on the same folder, when /health/ answers */
  restart_ready_mb: number;
  /** the restarted server after scenarios 1 and 2 at 10 connections (its peak since it started) */
  running_mb: number;
  targets: { first_start_mb: number; running_mb: number };
}

const measuredFrontend = (f: Results['frontend']): FrontendResult | null => (f && 'assets' in f ? f : null);

/** The web app's figures, one line each. */
function frontendLines(f: FrontendResult): string[] {
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
  return [
    `web app (Chromium, on the service's cores): grid of ${f.size.gridRows.toLocaleString('en')} rows × ${f.size.gridColumns} columns interactive `
      + `in ${fixed(f.grid_interactive_ms.cold, 0)} ms cold, ${fixed(f.grid_interactive_ms.warm_median, 0)} ms warm (median of ${f.grid_interactive_ms.warm.length})`,
    `  scrolling ${f.scroll.rows.toLocaleString('en')} rows top to bottom in ${f.scroll.frames} frames: median ${fixed(f.scroll.median_ms, 2)} ms, `
      + `p95 ${fixed(f.scroll.p95_ms, 2)} ms, max ${fixed(f.scroll.max_ms)} ms a frame; ${f.scroll.row_page_requests} row pages requested`,
    `  a cell edit, key press to the server's answer: p50 ${fixed(f.cell_edit_ms.p50)} ms, p95 ${fixed(f.cell_edit_ms.p95)} ms (${f.cell_edit_ms.n} edits)`,
    `  JavaScript (gzip): first screen ${kb(f.assets.first_screen_js_gzip_bytes)}, all ${kb(f.assets.js_gzip_bytes)}; CSS ${kb(f.assets.css_gzip_bytes)}`,
  ];
}

const fixed = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));
/** "0.85 + 0.40": CPU ms per request of the servers and of PostgreSQL. */
const costCell = (c: Record<Group, number> | undefined, servers = true) => (c
  ? `${servers ? c.servers.toFixed(2) : '–'} + ${c.postgresql.toFixed(2)}`
  : '–');
const othersCell = (c: CpuShare | undefined) => fixed(c?.other_cores, 2);
const pct = (x: number | null | undefined) => (x === null || x === undefined || Number.isNaN(x) ? '–' : `${Math.round(x * 100)}%`);
/** "+3.2%": a growth ratio. */
const signedPct = (x: number | null | undefined) => (x === null || x === undefined || Number.isNaN(x) ? '–' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
const GROWTH_PERCENT = Math.round(GROWTH_LIMIT * 100);

/** Scenario 7's statement times, one line per page. */
function pageCostLines(cost: PageCostResult): string[] {
  const ms = (c: StatementCost | null) => (c ? `${fixed(c.total_ms, 3)} (${fixed(c.planning_ms, 3)} + ${fixed(c.execution_ms, 3)})` : '–');
  return [
    `7 row list, ${cost.small_rows.toLocaleString('en')}-row vs ${cost.big_rows.toLocaleString('en')}-row table, PostgreSQL time per statement `
      + `(median of ${cost.runs} EXPLAIN ANALYZE runs; ms, planning + execution):`,
    ...cost.pages.map((p) => `  page ${p.page}: page query ${ms(p.small.page)} vs ${ms(p.big.page)}; count ${ms(p.small.count)} vs ${ms(p.big.count)}`),
  ];
}

/** The soak's intervals and its verdict per process. */
function soakLines(soak: SoakResult): string[] {
  const out = [
    `soak (${soak.date}): ${soak.scenario} at ${soak.connections} connections for ${soak.seconds} s: ${fixed(soak.rps)} req/s, `
      + `${soak.requests.toLocaleString('en')} requests, ${soak.non2xx + soak.errors} non-2xx + errors`,
  ];
  const roles = soak.processes.map((p) => `RSS MB ${p.role} ${p.pid}`);
  out.push(table(['at s', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'others', ...roles], soak.intervals.map((i) => [
    fixed(i.at_s, 0), fixed(i.rps), fixed(i.p50_ms, 2), fixed(i.p99_ms, 2), String(i.non2xx + i.errors), fixed(i.other_cores, 2),
    ...soak.processes.map((p) => fixed(i.rss.find((r) => r.pid === p.pid)?.rss_mb)),
  ]), 0));
  out.push(`RSS per process: ${soak.processes.map((p) => `${p.role} ${p.pid} ${fixed(p.start_rss_mb)} MB before the load, ${fixed(p.warm_rss_mb)} after the warm-up, `
    + `${fixed(p.end_rss_mb)} at the end (${signedPct(p.growth)}), peak ${fixed(p.peak_rss_mb)}`).join('; ')}`);
  out.push(`(${soak.rule})`);
  return out;
}

/** Fills in each scenario's limit and ratio: reads against SELECT 1, the cell PATCH against pgbench. */
export function compare(results: Results, limits: Record<string, string | null>): void {
  for (const s of results.scenarios) {
    if (s.status !== 'measured') continue;
    const name = limits[s.id] ?? null;
    if (s.database !== 'postgresql' || !name) {
      s.limit = null;
      s.ratio = null;
      continue;
    }
    const limit = name === 'pgbench'
      ? results.limits.pgbench.find((p) => p.connections === s.connections)
      : results.limits.http.find((l) => l.id === name && l.connections === s.connections);
    if (!limit) continue;
    const rps = 'tps' in limit ? limit.tps : limit.rps;
    s.limit = { name: name === 'pgbench' ? 'pgbench cell-patch.sql' : 'SELECT 1 route', rps, p50_ms: limit.p50_ms, p99_ms: limit.p99_ms };
    s.ratio = Math.round((s.rps / rps) * 1000) / 1000;
  }
}

/** The lists of issue 15's target 2, each against the SELECT 1 route. */
const LISTS = ['1-personnel-list', '1-personnel-detail', '3-cell-list', '7-row-list-small', '8-grid', '4-version-list', '5-inbox-list', '8-workflow-list', '8-step-list'];

/** The issues' targets (6, then 15's numbered 15.1 …), checked against the measured figures. */
export function checkTargets(results: Results): Target[] {
  const targets: Target[] = [];
  const pg = results.scenarios.filter((s) => s.database === 'postgresql' && s.status === 'measured');
  for (const s of pg.filter((x) => x.id === '2-cell-patch')) {
    targets.push({ target: `2 cell PATCH ≥ 50% of pgbench (c=${s.connections})`, measured: `${pct(s.ratio)} (${fixed(s.rps)} vs ${fixed(s.limit?.rps)}/s)`, holds: s.ratio == null ? null : s.ratio >= 0.5 });
  }
  // Issue 15's targets (15.1 …), ratios within this run.
  for (const s of pg.filter((x) => x.id === '2-cell-patch' || x.id === '2-cell-post')) {
    const minimal = results.limits.pgbench_minimal?.find((p) => p.connections === s.connections);
    if (!minimal) continue;
    const ratio = s.rps / minimal.tps;
    targets.push({
      target: `15.1 ${s.id === '2-cell-post' ? 'cell POST' : 'cell PATCH'} ≥ 50% of the minimal transaction's pgbench rate (c=${s.connections})`,
      measured: `${pct(ratio)} (${fixed(s.rps)} vs ${fixed(minimal.tps)}/s)`,
      holds: ratio >= 0.5,
    });
  }
  for (const id of LISTS) {
    for (const s of pg.filter((x) => x.id === id)) {
      targets.push({
        target: `15.2 ${s.id} ≥ 40% of the SELECT 1 route (c=${s.connections})`,
        measured: `${pct(s.ratio)} (${fixed(s.rps)} vs ${fixed(s.limit?.rps)}/s)`,
        holds: s.ratio == null ? null : s.ratio >= 0.4,
      });
    }
  }
  for (const o of orgSpread(results)) {
    targets.push({
      target: `15.3 one organization's cell PATCH ≥ 80% of the same spread over 10 organizations (c=${o.connections})`,
      measured: `${pct(o.ratio)} (${fixed(o.one_org_rps)} vs ${fixed(o.ten_orgs_rps)}/s)`,
      holds: o.ratio >= 0.8,
    });
  }
  for (const big of pg.filter((x) => x.id === '7-row-list-big')) {
    const small = pg.find((x) => x.id === '7-row-list-small' && x.connections === big.connections);
    if (!small) continue;
    const cost = (m: ScenarioResult) => (m.cpu_ms_per_request ? m.cpu_ms_per_request.servers + m.cpu_ms_per_request.postgresql : NaN);
    const ratio = small.rps / big.rps;
    const rows = (n: number | undefined, fallback: string) => (n === undefined ? fallback : n.toLocaleString('en'));
    targets.push({
      target: `15.4 row list page 1 with its exact count over HTTP: the ${rows(results.page_cost?.big_rows, 'big')}-row table within 2× of the ${rows(results.page_cost?.small_rows, 'small')}-row one (c=${big.connections})`,
      measured: `${fixed(ratio, 2)}× the time (${fixed(small.rps)} vs ${fixed(big.rps)} requests/s); CPU ms/request ${fixed(cost(small), 2)} vs ${fixed(cost(big), 2)}; p50 ${fixed(small.p50_ms, 2)} vs ${fixed(big.p50_ms, 2)} ms`,
      holds: ratio <= 2,
    });
  }
  const post = results.round_trips['5-notification-post'] as { round_trips?: number } | undefined;
  if (post?.round_trips !== undefined) {
    targets.push({
      target: '15.5 notification POST to two recipients in ≤ 4 database round trips',
      measured: `${post.round_trips} round trips`,
      holds: post.round_trips <= 4,
    });
  }
  for (const s of pg.filter((x) => x.id === '4-version-list')) {
    const three = pg.find((x) => x.id === '3-cell-list' && x.connections === s.connections);
    if (!three) continue;
    const p50 = s.p50_ms / three.p50_ms;
    const p99 = s.p99_ms / three.p99_ms;
    targets.push({
      target: `4 version list latency within 20% of scenario 3's (c=${s.connections})`,
      measured: `p50 ${fixed(s.p50_ms, 2)} vs ${fixed(three.p50_ms, 2)} ms (${pct(p50)}), p99 ${fixed(s.p99_ms, 2)} vs ${fixed(three.p99_ms, 2)} ms (${pct(p99)})`,
      holds: p50 <= 1.2 && p99 <= 1.2,
    });
  }
  const verify = results.verify as { versions_per_second?: number; versions?: number; seconds?: number } | null;
  if (verify?.versions_per_second !== undefined) {
    targets.push({
      target: '6 verify ≥ 50,000 versions/s',
      measured: `${Math.round(verify.versions_per_second).toLocaleString('en')} versions/s (${verify.versions} in ${fixed(verify.seconds, 3)} s)`,
      holds: verify.versions_per_second >= 50_000,
    });
  }
  const cost = results.page_cost;
  const rows = (n: number) => n.toLocaleString('en');
  if (cost) {
    for (const p of cost.pages) {
      const ratio = p.big.page.total_ms / p.small.page.total_ms;
      const count = p.small.count && p.big.count
        ? `; count ${fixed(p.small.count.total_ms, 3)} vs ${fixed(p.big.count.total_ms, 3)} ms (${pct(p.big.count.total_ms / p.small.count.total_ms)})`
        : '; the count is in the page query';
      targets.push({
        target: `7 row list page ${p.page} query within 20%, ${rows(cost.small_rows)} vs ${rows(cost.big_rows)} rows (PostgreSQL planning + execution)`,
        measured: `${fixed(p.small.page.total_ms, 3)} vs ${fixed(p.big.page.total_ms, 3)} ms (${pct(ratio)}; execution `
          + `${fixed(p.small.page.execution_ms, 3)} vs ${fixed(p.big.page.execution_ms, 3)} ms)${count}`,
        holds: ratio <= 1.2,
      });
    }
  }
  const soak = results.soak;
  if (soak) {
    targets.push({
      target: `soak: RSS at the end ≤ ${100 + GROWTH_PERCENT}% of after the warm-up, per process (${soak.seconds} s of ${soak.scenario}, c=${soak.connections})`,
      measured: soak.processes.map((p) => `${p.role} ${fixed(p.warm_rss_mb)} → ${fixed(p.end_rss_mb)} MB (${signedPct(p.growth)})`).join(', '),
      holds: soak.processes.some((p) => p.grew === null) ? null : soak.processes.every((p) => !p.grew),
    });
    targets.push({
      target: 'soak: peak RSS < 200 MB per process',
      measured: soak.peak_rss.map((p) => `${p.role} ${fixed(p.peak_rss_mb)} MB`).join(', '),
      holds: soak.peak_rss.every((p) => p.peak_rss_mb < 200),
    });
    targets.push({
      target: 'soak: no non-2xx response or error',
      measured: `${soak.non2xx + soak.errors} of ${soak.requests.toLocaleString('en')} requests`,
      holds: soak.non2xx + soak.errors === 0,
    });
  }
  const web = measuredFrontend(results.frontend);
  if (web) {
    targets.push({
      target: `web: the grid of ${web.size.gridRows.toLocaleString('en')} rows × ${web.size.gridColumns} columns interactive in < 1 s (cold cache)`,
      measured: `${fixed(web.grid_interactive_ms.cold, 0)} ms cold, ${fixed(web.grid_interactive_ms.warm_median, 0)} ms warm`,
      holds: web.grid_interactive_ms.cold < 1000,
    });
    targets.push({
      target: `web: median frame < 16 ms scrolling ${web.scroll.rows.toLocaleString('en')} rows`,
      measured: `median ${fixed(web.scroll.median_ms, 2)} ms, p95 ${fixed(web.scroll.p95_ms, 2)} ms`,
      holds: web.scroll.median_ms < 16,
    });
    targets.push({
      target: 'web: a cell edit saved in < 100 ms at p50 (key press to the answer)',
      measured: `p50 ${fixed(web.cell_edit_ms.p50)} ms, p95 ${fixed(web.cell_edit_ms.p95)} ms`,
      holds: web.cell_edit_ms.p50 < 100,
    });
    targets.push({
      target: 'web: first-screen JavaScript ≤ 250 kB gzipped',
      measured: `${(web.assets.first_screen_js_gzip_bytes / 1000).toFixed(1)} kB`,
      holds: web.assets.first_screen_js_gzip_bytes <= 250_000,
    });
  }
  const em = results.embedded_memory;
  if (em) {
    targets.push({
      target: `15.6 embedded: first start on a new data folder peaks < ${em.targets.first_start_mb} MB RSS (until /health/ answers)`,
      measured: `${fixed(em.first_start_mb)} MB`,
      holds: em.first_start_mb < em.targets.first_start_mb,
    });
    targets.push({
      target: `15.6 embedded: the running server peaks < ${em.targets.running_mb} MB RSS (restarted, then scenarios 1 and 2 at 10 connections)`,
      measured: `${fixed(em.running_mb)} MB (${fixed(em.restart_ready_mb)} MB when ready)`,
      holds: em.running_mb < em.targets.running_mb,
    });
  }
  const embedded = results.scenarios.filter((s) => s.database === 'embedded' && s.status === 'measured');
  if (embedded.length) {
    const beside = (s: ScenarioResult) => {
      const onPg = pg.find((x) => x.id === s.id && x.connections === s.connections);
      return `${s.id} ${fixed(s.rps)}/s${onPg ? ` (PostgreSQL ${fixed(onPg.rps)}/s)` : ''}`;
    };
    targets.push({
      target: '15.6 embedded: its list and cell PATCH rates in the results beside PostgreSQL\'s (c=10)',
      measured: embedded.map(beside).join('; '),
      holds: embedded.some((s) => s.id.startsWith('1-')) && embedded.some((s) => s.id === '2-cell-patch'),
    });
  }
  for (const [where, processes] of Object.entries(results.peak_rss)) {
    if (!processes.length || where.startsWith('embedded')) continue;
    const worst = Math.max(...processes.map((p) => p.peak_rss_mb));
    targets.push({
      target: `peak RSS < 200 MB per process (${where})`,
      measured: processes.map((p) => `${p.role} ${fixed(p.peak_rss_mb)} MB`).join(', '),
      holds: worst < 200,
    });
  }
  return targets;
}

function table(header: string[], rows: string[][], left = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < left ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The readable report printed at the end of a run. */
export function render(results: Results): string {
  const out: string[] = [];
  const m = results.machine as Record<string, string | number>;
  out.push(`Records Service benchmark (${results.mode}), ${results.date}, ${results.seconds.toFixed(0)} s`);
  out.push(`machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gb} GB; node ${m.node}; ${m.postgresql}`);
  out.push(`servers: WORKERS=${(results.config as { workers: number }).workers}; runs: ${JSON.stringify((results.config as { plan: unknown }).plan)}`);
  out.push('');
  const rows: string[][] = [];
  for (const s of results.scenarios) {
    if (s.status !== 'measured') {
      rows.push([`${s.id} (${s.database === 'embedded' ? 'embedded' : 'pg'})`, '', s.status, '', '', '', '', '', '', '']);
      continue;
    }
    rows.push([
      `${s.id} (${s.database === 'embedded' ? 'embedded' : 'pg'})`, String(s.connections), fixed(s.rps), fixed(s.p50_ms, 2), fixed(s.p99_ms, 2),
      String(s.non2xx + s.errors), s.limit ? `${s.limit.name === 'pgbench cell-patch.sql' ? 'pgbench' : 'SELECT 1'} ${fixed(s.limit.rps)}` : '–',
      pct(s.ratio), costCell(s.cpu_ms_per_request), othersCell(s.cpu),
    ]);
  }
  for (const l of results.limits.http) {
    rows.push([`limit: ${l.id === 'bare' ? 'bare route' : 'SELECT 1 route'}`, String(l.connections), fixed(l.rps), fixed(l.p50_ms, 2), fixed(l.p99_ms, 2),
      String(l.non2xx + l.errors), '', '', costCell(l.cpu_ms_per_request), othersCell(l.cpu)]);
  }
  for (const p of [...results.limits.pgbench, ...results.limits.pgbench_full, ...(results.limits.pgbench_minimal ?? [])]) {
    rows.push([`limit: pgbench ${p.script}`, String(p.connections), fixed(p.tps), fixed(p.p50_ms, 2), fixed(p.p99_ms, 2), String(p.failed), '', '',
      costCell(p.cpu_ms_per_request, false), othersCell(p.cpu)]);
  }
  out.push(table(['scenario', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'limit req/s', 'ratio', 'CPU ms/req srv + pg', 'others'], rows));
  out.push('(errors: non-2xx responses and connection errors; CPU ms/req: CPU time per request of the server processes and of PostgreSQL; '
    + 'others: cores used meanwhile by processes that are not this benchmark\'s — the machine is shared)');
  out.push('');
  const verify = results.verify as Record<string, number | boolean> | null;
  if (verify) {
    out.push(`6 verify the ${verify.versions}-version chain: ${fixed(verify.seconds as number, 3)} s (median of ${verify.calls}), `
      + `${Math.round(verify.versions_per_second as number).toLocaleString('en')} versions/s, is_valid ${verify.is_valid}`);
  }
  for (const [where, processes] of Object.entries(results.peak_rss)) {
    out.push(`peak RSS (${where}): ${processes.map((p) => `${p.role} ${p.pid} ${fixed(p.peak_rss_mb)} MB`).join(', ') || '–'}`);
  }
  const trips = results.round_trips as Record<string, { round_trips: number; statements: number }>;
  if (Object.keys(trips).length) {
    out.push(`database round trips per request: ${Object.entries(trips).map(([id, t]) => `${id} ${fixed(t.round_trips)}`).join(', ')}`);
  }
  if (results.page_cost) out.push(...pageCostLines(results.page_cost));
  const web = measuredFrontend(results.frontend);
  if (web) out.push(...frontendLines(web));
  else if (results.frontend) out.push(`web app: ${(results.frontend as { status: string }).status}`);
  if (results.soak) out.push('', ...soakLines(results.soak));
  out.push('');
  out.push(table(['target', 'measured', 'holds'], results.targets.map((t) => [t.target, t.measured, t.holds === null ? '–' : t.holds ? 'yes' : 'NO']), 2));
  return out.join('\n');
}

/** The same results as Markdown tables, for docs/benchmarks.md (`node --import tsx bench/markdown.ts`). */
export function renderMarkdown(results: Results): string {
  const out: string[] = [];
  const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  out.push(row(['scenario', 'database', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx + errors', 'limit (req/s)', 'ratio',
    'CPU ms/request: server + PostgreSQL', 'other processes (cores)']));
  out.push(row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---', '---:', '---:', '---:']));
  for (const s of results.scenarios) {
    const title = `${s.id.split('-')[0]}. ${s.title}`;
    if (s.status !== 'measured') {
      out.push(row([title, s.database === 'embedded' ? 'embedded' : 'PostgreSQL', '', s.status, '', '', '', '', '', '', '']));
      continue;
    }
    out.push(row([
      title, s.database === 'embedded' ? 'embedded' : 'PostgreSQL', s.connections, fixed(s.rps), fixed(s.p50_ms, 2), fixed(s.p99_ms, 2),
      s.non2xx + s.errors, s.limit ? `${s.limit.name} (${fixed(s.limit.rps)})` : '–', pct(s.ratio), costCell(s.cpu_ms_per_request), othersCell(s.cpu),
    ]));
  }
  for (const l of results.limits.http) {
    out.push(row([`limit: ${l.id === 'bare' ? 'bare Fastify route' : 'SELECT 1 route (pg pool)'}`, l.id === 'bare' ? '–' : 'PostgreSQL', l.connections,
      fixed(l.rps), fixed(l.p50_ms, 2), fixed(l.p99_ms, 2), l.non2xx + l.errors, '', '', costCell(l.cpu_ms_per_request), othersCell(l.cpu)]));
  }
  for (const p of [...results.limits.pgbench, ...results.limits.pgbench_full, ...(results.limits.pgbench_minimal ?? [])]) {
    out.push(row([`limit: pgbench \`${p.script}\` (tps)`, 'PostgreSQL', p.connections, fixed(p.tps), fixed(p.p50_ms, 2), fixed(p.p99_ms, 2), p.failed, '', '',
      costCell(p.cpu_ms_per_request, false), othersCell(p.cpu)]));
  }
  const verify = results.verify as Record<string, number | boolean> | null;
  if (verify) {
    out.push('');
    out.push(`6. Verifying the ${Number(verify.versions).toLocaleString('en')}-version chain in one call: ${fixed(verify.seconds as number, 3)} s `
      + `(median of ${verify.calls}), ${Math.round(verify.versions_per_second as number).toLocaleString('en')} versions/s, is_valid: ${verify.is_valid}.`);
  }
  out.push('');
  const places: Record<string, string> = {
    postgresql: 'PostgreSQL servers', embedded: 'embedded server restarted, after scenarios 1 and 2', embedded_first_start: 'embedded server, first start on a new data folder (until /health/ answers)',
    embedded_seeding: 'the same process, after seeding', embedded_restart_ready: 'embedded server restarted, when ready',
  };
  out.push(`Peak RSS: ${Object.entries(results.peak_rss).map(([where, ps]) => `${places[where] ?? where}: `
    + ps.map((p) => `${p.role} ${fixed(p.peak_rss_mb)} MB`).join(', ')).join('; ')}.`);
  const trips = results.round_trips as Record<string, { round_trips: number }>;
  if (Object.keys(trips).length) {
    out.push('');
    out.push(`Database round trips per request: ${Object.entries(trips).map(([id, t]) => `${id} ${fixed(t.round_trips)}`).join(', ')}.`);
  }
  if (results.page_cost) out.push('', ...pageCostLines(results.page_cost));
  const webMd = measuredFrontend(results.frontend);
  if (webMd) out.push('', '```', ...frontendLines(webMd), '```');
  if (results.soak) out.push('', '```', ...soakLines(results.soak), '```');
  out.push('');
  out.push(row(['target', 'measured', 'holds']));
  out.push(row(['---', '---', '---']));
  for (const t of results.targets) out.push(row([t.target, t.measured, t.holds === null ? '–' : t.holds ? 'yes' : '**no**']));
  return out.join('\n');
}
