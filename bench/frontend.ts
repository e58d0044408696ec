// The web app's front-end figures (issue 14, point 6), in real Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) against the service on PostgreSQL, on
// the same cores as the service:
//
// - the grid of a 1,000-row, 10-column table: time from navigation to the first rows in
//   the document (noted by the page itself; the grid is interactive then: a cell takes
//   focus and keys), with a cold cache and warm (the app's hashed files cached, as on a
//   second visit);
// - frames while scrolling a 100,000-row table from top to bottom (the scroll position
//   moved every frame; the browser runs without a frame-rate limit, so a frame's
//   interval is what producing it cost: script, layout, paint), median and 95th
//   percentile, and the row pages requested meanwhile;
// - a cell edit, from the key press that saves it to the server's answer (Resource
//   Timing's responseEnd of the PATCH), p50 and p95;
// - the JavaScript and CSS sizes (gzip -9) of the first screen and of the whole build.
//
// The tables are seeded with SQL (as bench/seed.ts does), in a project of their own.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type pg from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from './lib/http.js';
import { ROOT } from './lib/processes.js';
import type { Organization } from './seed.js';

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run',
  // Frames as fast as they can be made, so that a frame's interval is its cost (not the 60 Hz vsync).
  '--disable-gpu-vsync', '--disable-frame-rate-limit',
];
const VIEWPORT = { width: 1280, height: 800 };

export interface FrontendSize {
  /** rows of the table whose grid is opened and edited (10 columns) */
  gridRows: number;
  gridColumns: number;
  /** rows of the table scrolled through (2 columns) */
  scrollRows: number;
  /** page loads for the interactive time, cell edits, frames of the scroll */
  loads: number;
  edits: number;
  frames: number;
}

export const FRONTEND_FULL: FrontendSize = { gridRows: 1_000, gridColumns: 10, scrollRows: 100_000, loads: 7, edits: 30, frames: 1_200 };
export const FRONTEND_QUICK: FrontendSize = { gridRows: 1_000, gridColumns: 10, scrollRows: 10_000, loads: 3, edits: 8, frames: 300 };

export interface FrontendResult {
  size: FrontendSize;
  grid_interactive_ms: { cold: number; warm_median: number; warm: number[]; cold_breakdown?: LoadBreakdown; warm_breakdown?: LoadBreakdown };
  scroll: { rows: number; frames: number; median_ms: number; p95_ms: number; max_ms: number; row_page_requests: number };
  cell_edit_ms: { p50: number; p95: number; n: number };
  assets: AssetSizes;
}

export interface AssetSizes {
  first_screen_js_gzip_bytes: number;
  js_gzip_bytes: number;
  css_gzip_bytes: number;
  first_screen_files: string[];
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : Number.NaN;
};
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The scripts index.html loads at once: the module entry and its modulepreload links. */
export function firstScreenScripts(html: string): string[] {
  const found = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"[^>]*>/g)) found.add(m[1]);
  for (const m of html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"[^>]*>/g)) found.add(m[1]);
  return [...found];
}

/** Sizes of the built app in `webDir` (default dist/web), gzip -9. */
export function assetSizes(webDir = path.join(ROOT, 'dist', 'web')): AssetSizes {
  const gz = (file: string) => gzipSync(fs.readFileSync(file), { level: 9 }).length;
  const html = fs.readFileSync(path.join(webDir, 'index.html'), 'utf8');
  const first = firstScreenScripts(html);
  const assets = fs.readdirSync(path.join(webDir, 'assets'));
  const sum = (ext: string) => assets.filter((f) => f.endsWith(ext)).reduce((n, f) => n + gz(path.join(webDir, 'assets', f)), 0);
  return {
    first_screen_js_gzip_bytes: first.reduce((n, src) => n + gz(path.join(webDir, src)), 0),
    js_gzip_bytes: sum('.js'),
    css_gzip_bytes: sum('.css'),
    first_screen_files: first,
  };
}

/** A project of the benchmark's admin, and the two tables, seeded with SQL. */
async function seedTables(org: Organization, pool: pg.Pool, size: FrontendSize) {
  const { base, token, orgSid } = org;
  const project = await expect(base, 201, 'POST', `/projects/project/list/organization/${orgSid}/detail/`, { token, body: { name: 'Front-end' } });
  await expect(base, 201, 'POST', `/projects/member/list/project/${project.sid}/detail/`, { token, body: { personnel: org.personnelSid, permission: 'admin' } });
  const table = async (name: string, columns: number) => {
    const t = await expect(base, 201, 'POST', `/tables/table/list/organization/${orgSid}/detail/`, { token, body: { name } });
    const cols: string[] = [];
    for (let c = 1; c <= columns; c += 1) {
      const col = await expect(base, 201, 'POST', `/tables/column/list/organization/${orgSid}/detail/?table__sid=${t.sid}`, {
        token, body: { name: `Column ${c}`, widget: 'builtinWidgetTxt', order: c },
      });
      cols.push(col.sid);
    }
    return { sid: t.sid as string, columns: cols };
  };
  const grid = await table(`Grid ${size.gridRows.toLocaleString('en')} × ${size.gridColumns}`, size.gridColumns);
  const scroll = await table(`Scroll ${size.scrollRows.toLocaleString('en')}`, 2);
  // Sids of 16 characters, as the service's: the 2-letter prefix, r/c/v, 13 digits.
  const fill = async (prefix: string, t: { sid: string; columns: string[] }, rows: number, versions: boolean) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL session_replication_role = replica');
      await client.query(
        `INSERT INTO record_rows (sid, organization_sid, table_sid, project_sid, name, description, created_by, date_created, date_updated)
         SELECT $1 || 'r' || lpad(n::text, 13, '0'), $2, $3, $4, 'Row ' || lpad(n::text, 6, '0'), '', $5,
                now() + n * interval '1 microsecond', now() + n * interval '1 microsecond'
           FROM generate_series(1, $6::int) n`,
        [prefix, orgSid, t.sid, project.sid, org.userSid, rows],
      );
      await client.query(
        `INSERT INTO cells (sid, organization_sid, row_sid, column_sid, widget_sid, data, created_by, updated_by)
         SELECT $1 || 'c' || lpad(((n - 1) * $6 + c)::text, 13, '0'), $2, $1 || 'r' || lpad(n::text, 13, '0'), ($3::text[])[c],
                'builtinWidgetTxt', 'value ' || n || '.' || c, $4, $4
           FROM generate_series(1, $5::int) n, generate_series(1, $6::int) c`,
        [prefix, orgSid, t.columns, org.userSid, rows, t.columns.length],
      );
      if (versions) {
        await client.query(
          `SELECT count(*) FROM (SELECT records_append_version($1 || 'v' || lpad(n::text, 13, '0'), $1 || 'r' || lpad(n::text, 13, '0'), $3, 'Created the row')
             FROM generate_series(1, $2::int) n) s`,
          [prefix, rows, org.userSid],
        );
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  };
  await fill('fg', grid, size.gridRows, true);
  await fill('fs', scroll, size.scrollRows, false);
  await pool.query('VACUUM (ANALYZE) record_rows, cells');
  return { project: project.sid as string, grid, scroll };
}

async function signedIn(browser: Browser, base: string, token: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: base, viewport: VIEWPORT, locale: 'en-US', timezoneId: 'UTC' });
  await context.addInitScript(FIRST_CELL_OBSERVER);
  context.setDefaultTimeout(60_000);
  await context.addCookies([{ name: 'records_session', value: token, url: base, httpOnly: true, sameSite: 'Strict' }]);
  return context;
}

/**
 * Noted in the page itself, from before its first script: when the first grid cell is in
 * the document (a MutationObserver). Polling for it from outside would add up to the poll
 * interval (Playwright's grows to 500 ms) to the figure.
 */
const FIRST_CELL_OBSERVER = `(() => {
  window.__firstCellAt = null;
  const observer = new MutationObserver(() => {
    if (window.__firstCellAt === null && document.querySelector('[role="gridcell"]')) {
      window.__firstCellAt = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
})()`;

/** Navigation start to the first row of the grid in the document, in the page's own clock. */
async function gridInteractive(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  await page.locator('[role="gridcell"]').first().waitFor();
  return page.evaluate('window.__firstCellAt') as Promise<number>;
}

/**
 * Where the time of the load just measured went (Resource Timing, ms from navigation
 * start): the HTML answered, the app's scripts loaded, the first API request sent, the
 * grid's first page answered.
 */
async function loadBreakdown(page: Page): Promise<LoadBreakdown> {
  return page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource');
    const scripts = res.filter((e) => e.name.endsWith('.js'));
    const api = res.filter((e) => e.initiatorType === 'fetch');
    const grid = api.find((e) => e.name.includes('/grid/'));
    const round = (x) => (x === undefined ? null : Math.round(x));
    return {
      html_ms: round(nav && nav.responseEnd),
      scripts_ms: round(scripts.length ? Math.max(...scripts.map((e) => e.responseEnd)) : undefined),
      first_api_request_ms: round(api.length ? Math.min(...api.map((e) => e.startTime)) : undefined),
      grid_page_answered_ms: round(grid && grid.responseEnd),
      api_requests_before_grid: grid ? api.filter((e) => e.startTime < grid.startTime).length : null,
    };
  })()`) as Promise<LoadBreakdown>;
}

export interface LoadBreakdown {
  html_ms: number | null;
  scripts_ms: number | null;
  first_api_request_ms: number | null;
  grid_page_answered_ms: number | null;
  api_requests_before_grid: number | null;
}

/**
 * Every frame's interval while the grid's scroll position moves from top to bottom in
 * `frames` steps. (A string, not a function: tsx would wrap the inner function in a
 * `__name` helper that does not exist in the page.)
 */
async function scrollFrames(page: Page, frames: number): Promise<number[]> {
  return page.evaluate(`new Promise((resolve, reject) => {
    const count = ${Number(frames)};
    const scroller = document.querySelector('[role="grid"]');
    if (!scroller) return reject(new Error('no grid on the page'));
    const step = (scroller.scrollHeight - scroller.clientHeight) / count;
    const intervals = [];
    let last = performance.now();
    let i = 0;
    function frame(now) {
      intervals.push(now - last);
      last = now;
      i += 1;
      if (i > count) return resolve(intervals.slice(1)); // the first interval is from before the scroll began
      scroller.scrollTop = Math.round(step * i);
      requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
  })`) as Promise<number[]>;
}

/** Key press (Enter, saving an edited cell) to the PATCH's responseEnd, per edit. */
async function cellEdits(page: Page, columns: number, edits: number): Promise<number[]> {
  await page.evaluate(() => {
    const w = window as unknown as { __saveKeys: number[] };
    w.__saveKeys = [];
    // The press that saves: Enter in the cell's text box.
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.target as HTMLElement).classList.contains('cell-input')) w.__saveKeys.push(performance.now());
    }, { capture: true });
  });
  for (let i = 0; i < edits; i += 1) {
    const row = 1 + (i % 15);
    const col = 1 + (i % columns);
    const cell = page.getByRole('gridcell', { name: `Column ${col} of Row ${String(row).padStart(6, '0')}` });
    await cell.click();
    await page.keyboard.press('Enter');
    await page.locator('.cell-input').fill(`edited ${i}`);
    const answered = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/tables/cell/detail/'));
    await page.keyboard.press('Enter');
    const answer = await answered;
    if (answer.status() !== 200) throw new Error(`cell edit ${i}: PATCH answered ${answer.status()}: ${await answer.text()}`);
    await page.locator('.cell-input').waitFor({ state: 'detached' });
  }
  return page.evaluate(() => {
    const keys = (window as unknown as { __saveKeys: number[] }).__saveKeys;
    const patches = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((e) => e.name.includes('/tables/cell/detail/') && e.initiatorType === 'fetch');
    // Each save's PATCH is the first one that started after its key press.
    return keys.map((at) => {
      const patch = patches.find((p) => p.startTime >= at);
      return patch ? patch.responseEnd - at : Number.NaN;
    });
  });
}

export async function measureFrontend(
  org: Organization, pool: pg.Pool, size: FrontendSize, log: (line: string) => void,
): Promise<FrontendResult> {
  const seeded = await seedTables(org, pool, size);
  log(`  seeded: ${size.gridRows} rows × ${size.gridColumns} columns, ${size.scrollRows.toLocaleString('en')} rows × 2 columns`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const gridUrl = `/o/${org.orgSid}/tables/${seeded.grid.sid}/rows?project=${seeded.project}`;
    const scrollUrl = `/o/${org.orgSid}/tables/${seeded.scroll.sid}/rows?project=${seeded.project}`;

    // The service has served these requests before (one load in a context of its own), as a
    // running service has: "cold" is the browser's cache and compiled code, not the server's.
    const warmUp = await signedIn(browser, org.base, org.token);
    await gridInteractive(await warmUp.newPage(), gridUrl);
    await warmUp.close();
    // Interactive: the first load with an empty cache, then warm loads in the same context.
    const context = await signedIn(browser, org.base, org.token);
    const page = await context.newPage();
    const cold = await gridInteractive(page, gridUrl);
    const coldBreakdown = await loadBreakdown(page);
    const warm: number[] = [];
    for (let i = 0; i < size.loads; i += 1) warm.push(await gridInteractive(page, gridUrl));
    const warmBreakdown = await loadBreakdown(page);
    log(`  cold load: ${JSON.stringify(coldBreakdown)}; a warm one: ${JSON.stringify(warmBreakdown)}`);
    log(`  grid interactive: cold ${round(cold)} ms, warm median ${round(quantile(warm, 0.5))} ms (${warm.map((x) => round(x, 0)).join(', ')})`);

    const editMs = await cellEdits(page, size.gridColumns, size.edits);
    log(`  cell edit, key press to saved: p50 ${round(quantile(editMs, 0.5))} ms, p95 ${round(quantile(editMs, 0.95))} ms (${editMs.length} edits)`);

    let rowPages = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/tables/row/list/')) rowPages += 1;
    });
    await gridInteractive(page, scrollUrl);
    rowPages = 0;
    const frames = await scrollFrames(page, size.frames);
    const scroll = {
      rows: size.scrollRows, frames: frames.length, median_ms: round(quantile(frames, 0.5), 2), p95_ms: round(quantile(frames, 0.95), 2),
      max_ms: round(Math.max(...frames), 1), row_page_requests: rowPages,
    };
    log(`  scroll ${size.scrollRows.toLocaleString('en')} rows in ${frames.length} frames: median ${scroll.median_ms} ms, p95 ${scroll.p95_ms} ms, `
      + `max ${scroll.max_ms} ms; ${rowPages} row pages requested`);
    await context.close();
    return {
      size,
      grid_interactive_ms: {
        cold: round(cold), warm_median: round(quantile(warm, 0.5)), warm: warm.map((x) => round(x)),
        cold_breakdown: coldBreakdown, warm_breakdown: warmBreakdown,
      },
      scroll,
      cell_edit_ms: { p50: round(quantile(editMs, 0.5)), p95: round(quantile(editMs, 0.95)), n: editMs.length },
      assets: assetSizes(),
    };
  } finally {
    await browser.close();
  }
}
