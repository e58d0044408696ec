// PostgreSQL going away under load and coming back, on a throwaway cluster of our own
// (the machine's shared PostgreSQL is never touched). While it is down every request
// fails fast with 503 and GET /health/ says so; once it is back the same server
// processes serve writes and reads again without a restart, and what was written before,
// during and after the outage is whole.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Api } from '../helpers/http.ts';
import { recordPaths } from '../helpers/records.ts';
import { acknowledged, assertWholeWrites, writeRow, type Write } from './consistency.ts';
import { attempt, pricedWorkspace, startTracked, throwawayCluster, undoAll, type Attempt } from './lib.ts';

/** "Fail fast": no request may take this long, down or up. */
const FAST_MS = 5_000;
/** How long PostgreSQL stays down each time. */
const OUTAGE_MS = 3_000;
/** How long the service may take to serve again once PostgreSQL accepts connections. */
const RECOVERY_MS = 15_000;

after(undoAll);

interface Timed extends Attempt {
  what: string;
  startedAt: number;
}

describe('PostgreSQL restarted under load', () => {
  test('while it is down requests answer 503 fast and /health/ says 503; after it is back the same servers serve writes and reads; nothing is half written', { timeout: 120_000 }, async () => {
    const cluster = await throwawayCluster();
    try {
      const server = await startTracked({ databaseUrl: cluster.url, workers: 2, env: { INITIAL_CREDITS: '100.00' } });
      try {
        const ws = await pricedWorkspace(server, { label: 'pgdown', price: '0.01', columns: 2, rows: 4 });
        const api = new Api(ws.user.token, 'token', server.baseUrl);

        // Every cell exists first (a POST cut by the outage may or may not have created its
        // cell), so the load is PATCHes: a writer per row, and two readers, all the time.
        const writes: Write[] = [];
        const cells = ws.rows.map(() => new Map<string, string>());
        for (const [r, row] of ws.rows.entries()) {
          for (const [c, column] of ws.priced.entries()) {
            const data = `row ${r} initial ${c}`;
            const created = await attempt('POST', server.baseUrl + recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), {
              token: ws.user.token, body: { column: column.sid, data },
            });
            assert.equal(created.status, 201, created.text);
            cells[r].set(column.sid, created.json.sid);
            writes.push({ row: row.sid, column: column.sid, data, op: 'POST', seq: c - 100, outcome: created });
          }
        }
        const reads: Timed[] = [];
        let stopped = false;
        const writers = ws.rows.map((_row, i) => writeRow(ws, i, writes, { baseUrl: server.baseUrl, stop: () => stopped, cells: cells[i] }));
        const reader = async (i: number) => {
          while (!stopped) {
            const row = ws.rows[i % ws.rows.length];
            const [what, url] = i % 2
              ? ['row detail', recordPaths.rowDetail(row.sid)]
              : ['cell list', recordPaths.cellList(ws.org.sid, 'list', { row__sid: row.sid })];
            const startedAt = Date.now();
            reads.push({ ...(await attempt('GET', server.baseUrl + url, { token: ws.user.token, timeoutMs: 30_000 })), what, startedAt });
            i += 1;
            await sleep(20);
          }
        };
        const readers = [reader(0), reader(1)];

        const outages: { mode: string; down: number; up: number; health: Attempt[] }[] = [];
        try {
          for (const mode of ['immediate', 'fast'] as const) {
            await sleep(1_000);
            await cluster.stop(mode);
            const down = Date.now();
            const health: Attempt[] = [];
            while (Date.now() - down < OUTAGE_MS) {
              health.push(await attempt('GET', `${server.baseUrl}/health/`, { timeoutMs: 30_000 }));
              await sleep(250);
            }
            const up = Date.now();
            await cluster.start();
            outages.push({ mode, down, up, health });

            // Back by itself: /health/ and then every writer succeed again, no restart.
            const deadline = Date.now() + RECOVERY_MS;
            let healthy = false;
            while (!healthy && Date.now() < deadline) {
              healthy = (await attempt('GET', `${server.baseUrl}/health/`, { timeoutMs: 5_000 })).status === 200;
              if (!healthy) await sleep(200);
            }
            assert.ok(healthy, `GET /health/ answers 200 within ${RECOVERY_MS / 1000} s of PostgreSQL accepting connections again (${mode})`);
            const started = Date.now();
            const wroteSince = (row: string) => writes.some((w) => w.row === row && acknowledged(w) && w.outcome!.endedAt > started);
            while (!ws.rows.every((r) => wroteSince(r.sid)) && Date.now() < deadline) await sleep(100);
            const last = ws.rows.map((r) => writes.filter((w) => w.row === r.sid).at(-1)!.outcome);
            assert.ok(ws.rows.every((r) => wroteSince(r.sid)), `every writer succeeds again after the ${mode} restart; their last answers: `
              + `${last.map((a) => (a ? `${a.status ?? a.error} ${a.text.slice(0, 120)}` : 'in flight')).join(' | ')}\n${server.logTail(30)}`);
          }
          await sleep(500);
        } finally {
          stopped = true;
          await Promise.all([...writers, ...readers]);
        }

        // While down: /health/ said 503 {"status": "unavailable"}, fast.
        for (const { mode, health } of outages) {
          assert.ok(health.length >= 3, `${mode}: /health/ was asked while PostgreSQL was down`);
          for (const h of health) {
            assert.equal(h.status, 503, `${mode}: /health/ while PostgreSQL is down: ${h.status} ${h.text}`);
            assert.equal(h.json?.status, 'unavailable');
            assert.ok(h.ms < FAST_MS, `${mode}: /health/ answered in ${h.ms} ms`);
          }
        }

        // Every request got an answer, fast: 2xx, or 503 with Retry-After while the database was away.
        const all: { what: string; a: Attempt; startedAt: number }[] = [
          ...writes.map((w) => ({ what: `${w.op} ${w.data}`, a: w.outcome!, startedAt: w.outcome!.endedAt - w.outcome!.ms })),
          ...reads.map((r) => ({ what: r.what, a: r as Attempt, startedAt: r.startedAt })),
        ];
        const slowest = Math.max(...all.map((x) => x.a.ms));
        for (const { what, a } of all) {
          assert.ok(a.ms < FAST_MS, `${what} took ${a.ms} ms`);
          assert.ok(a.status !== null, `${what} got an answer (got ${a.error})`);
          if (a.status! >= 300) {
            assert.equal(a.status, 503, `${what}: only 503 while the database is away: ${a.status} ${a.text}`);
            assert.equal(a.headers?.get('retry-after'), '5', `${what}: a 503 says when to retry`);
            assert.deepEqual(a.json, { detail: 'The service is temporarily unavailable; try again shortly.' });
          }
        }
        // The load met each outage: requests started while PostgreSQL was down were refused with 503.
        for (const { mode, down, up } of outages) {
          const during = all.filter((x) => x.startedAt > down && x.a.endedAt < up);
          assert.ok(during.length >= 10, `${mode}: requests were made while PostgreSQL was down (${during.length})`);
          assert.ok(during.every((x) => x.a.status === 503), `${mode}: each of them answered 503`);
        }

        // A plain write and read after it all, then: nothing half written.
        const cell = cells[0].values().next().value!;
        const patched = await attempt('PATCH', server.baseUrl + recordPaths.cellDetail(cell), { token: ws.user.token, body: { data: 'after it all' } });
        assert.equal(patched.status, 200, `a PATCH after it all: ${patched.status} ${patched.text}`);
        const read = await attempt('GET', server.baseUrl + recordPaths.rowDetail(ws.rows[0].sid), { token: ws.user.token });
        assert.equal(read.status, 200, `a GET after it all: ${read.status} ${read.text}`);
        assert.equal(read.json.cells.find((c: any) => c.sid === cell)?.data, 'after it all');
        writes.push({ row: ws.rows[0].sid, column: patched.json.column.sid, data: 'after it all', op: 'PATCH', seq: Number.MAX_SAFE_INTEGER, outcome: patched });
        const found = await assertWholeWrites(api, ws, writes, 10_000, 1);
        const refused = all.filter((x) => x.a.status === 503).length;
        console.log(`# ${found.acknowledged} writes acknowledged, ${refused} answers 503, slowest answer ${slowest} ms, ${found.versions} versions, ${found.debits} debits`);
      } finally {
        await server.stop();
      }
    } finally {
      await cluster.remove();
    }
  });
});
