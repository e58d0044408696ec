// The planner's statistics (jobs/statistics.ts): a table changed past autovacuum's default
// threshold is analyzed by the service itself, every STATISTICS_CHECK_SECONDS. The embedded
// engine has no autovacuum, and this machine's PostgreSQL runs with it off: without the job
// record_rows keeps the figures of when it was empty (reltuples -1, never analyzed).
//
// A database of its own (PostgreSQL: a fresh database; PGlite: a fresh folder), so that no
// other test's import (which analyzes) or rows count.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { DB_KIND } from '../helpers/env.ts';
import { scratchDatabase } from '../helpers/scratch-db.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { startServer } from '../helpers/server.ts';
import { newSmallWorkspaceAt, recordPaths } from '../helpers/records.ts';

const METRICS = 'metrics-token-statistics-test-0123';
const ROWS = 120;
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const step of cleanups.reverse()) await step().catch(() => {});
});

async function freshTarget(): Promise<{ databaseUrl: string | null; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-statistics-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  if (DB_KIND !== 'postgres') return { databaseUrl: null, dataDir };
  const { url, drop } = await scratchDatabase('statistics');
  cleanups.push(drop);
  return { databaseUrl: url, dataDir };
}

/** The first row of `text` on the target's database (no server may run on PGlite's folder). */
async function one(target: { databaseUrl: string | null; dataDir: string }, text: string): Promise<any> {
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      return (await client.query(text)).rows[0];
    } finally {
      await client.end();
    }
  }
  const db = await PGlite.create(path.join(target.dataDir, 'pgdata'), { extensions: { pg_trgm } });
  try {
    return (await db.query(text)).rows[0];
  } finally {
    await db.close();
  }
}

test(`${ROWS} rows added through the API: the service analyzes record_rows itself, and its statistics count them`, async () => {
  const target = await freshTarget();
  const server = await startServer({ ...target, env: { STATISTICS_CHECK_SECONDS: '1', METRICS_TOKEN: METRICS } });
  cleanups.push(() => server.stop());
  const runs = async (outcome: string) => {
    const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).text();
    return Number(new RegExp(`^records_job_runs_total\\{job="statistics",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  };
  const ws = await newSmallWorkspaceAt(server, 'stats', 1);
  const rowsPath = recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid });
  for (let i = 0; i < ROWS; i += 1) expectStatus(await ws.api.post(rowsPath, { name: `Row ${i}` }), 201);
  // Runs analyze what changed; once a run finds nothing stale (idle) after one that did (ok),
  // every change made so far has been analyzed (the figures of changes reach
  // pg_stat_user_tables within a second or two).
  const idleBefore = await runs('idle');
  let done = false;
  for (let i = 0; i < 300 && !done; i += 1) {
    await sleep(200);
    done = (await runs('ok')) >= 1 && (await runs('idle')) >= idleBefore + 2;
  }
  assert.ok(done, `the statistics job ran (ok ${await runs('ok')}, idle ${await runs('idle')})`);
  await server.stop();
  // reltuples is -1 until a table is first analyzed (or vacuumed, which no job does to
  // record_rows). A run may have come while the rows were being added: the figures are then
  // those of that run, as fresh as the threshold keeps them (fewer than 50 rows and a tenth
  // of the table changed since).
  const { reltuples, rows } = await one(target, `SELECT reltuples::float8 AS reltuples, (SELECT count(*)::int FROM record_rows) AS rows
    FROM pg_class WHERE oid = 'record_rows'::regclass`);
  assert.equal(rows, ROWS);
  assert.ok(reltuples > 0 && rows - reltuples <= 50 + 0.1 * reltuples, `record_rows' statistics count ${reltuples} of its ${rows} rows`);
});
