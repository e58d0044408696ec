// SIGTERM (a deploy, a process manager stopping the service) with slow requests in
// flight, on PostgreSQL: those requests finish with their normal answers, new
// connections are refused (or answered 503) from then on, and the process exits 0 soon
// after the last answer. What the in-flight writes did is whole.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Api } from '../helpers/http.ts';
import { recordPaths } from '../helpers/records.ts';
import { assertWholeWrites, type Write } from './consistency.ts';
import { attempt, freshDatabase, pricedWorkspace, probeNewConnection, startTracked, undoAll, waitGroupGone } from './lib.ts';

/**
 * Concurrent PATCHes of one row's cells, each its own cell: they queue on the row's lock, so
 * the last answers well after the first. At most the pool of one process (10), so each waits
 * in PostgreSQL (PATCHes of one cell would take turns in the process instead,
 * core/write-turns.ts, where pg_stat_activity cannot see them).
 */
const BURST = 10;
const COLUMNS = BURST;
/** How soon after the last in-flight answer the process must have exited. */
const EXIT_MS = 10_000;

after(undoAll);

const refused = (probe: number | string) => probe === 503 || typeof probe === 'string';

describe('SIGTERM with requests in flight (PostgreSQL)', () => {
  for (const workers of [1, 2]) {
    test(`WORKERS=${workers}: in-flight writes finish with 200, new connections are refused or 503, the process exits 0`, { timeout: 120_000 }, async () => {
      const database = await freshDatabase('sigterm');
      try {
        const env = { INITIAL_CREDITS: '10.00' };
        const server = await startTracked({ databaseUrl: database.url, workers, env });
        const ws = await pricedWorkspace(server, { label: 'sigterm', price: '0.01', columns: COLUMNS, rows: 1 });
        const row = ws.rows[0];
        const writes: Write[] = [];
        const cells: string[] = [];
        for (const [c, column] of ws.priced.entries()) {
          const data = `initial ${c}`;
          const created = await attempt('POST', server.baseUrl + recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), {
            token: ws.user.token, body: { column: column.sid, data },
          });
          assert.equal(created.status, 201, created.text);
          cells.push(created.json.sid);
          writes.push({ row: row.sid, column: column.sid, data, op: 'POST', seq: c - 100, outcome: created });
        }

        // The burst, on connections opened beforehand (so each request goes straight to the
        // process that will answer it), then SIGTERM to the server's (primary) process.
        const watcher = new pg.Client({ connectionString: database.url });
        await watcher.connect();
        const warm = await Promise.all(Array.from({ length: BURST }, () => attempt('GET', `${server.baseUrl}/health/`)));
        assert.ok(warm.every((a) => a.status === 200), 'connections opened');
        const burst: Write[] = Array.from({ length: BURST }, (_v, i) => ({
          row: row.sid, column: ws.priced[i % COLUMNS].sid, data: `burst ${i}`, op: 'PATCH' as const, seq: i, outcome: null,
        }));
        const answers = burst.map((w, i) => attempt('PATCH', server.baseUrl + recordPaths.cellDetail(cells[i % COLUMNS]), {
          token: ws.user.token, body: { data: w.data }, timeoutMs: 60_000,
        }).then((a) => (w.outcome = a)));
        // SIGTERM once the server holds every request of the burst: each is answered, holds
        // the row's lock, or waits for it in PostgreSQL (so none is still unread).
        let holding = false;
        try {
          const deadline = Date.now() + 30_000;
          while (!holding && Date.now() < deadline) {
            const { rows } = await watcher.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
            holding = rows[0].n + 1 + burst.filter((w) => w.outcome).length >= BURST;
            if (!holding) await sleep(5);
          }
        } finally {
          await watcher.end();
        }
        assert.ok(holding, 'the server holds every request of the burst');
        assert.ok(burst.filter((w) => !w.outcome).length >= BURST / 2, 'most of the burst is still in flight');
        const termAt = Date.now();
        process.kill(server.pid, 'SIGTERM');

        // New connections from now until the process is gone.
        const probes: { at: number; ms: number; result: number | string }[] = [];
        let exited = false;
        const exit = server.exit.then((e) => {
          exited = true;
          return { ...e, at: Date.now() };
        });
        const probing = (async () => {
          while (!exited) {
            const at = Date.now();
            const result = await probeNewConnection(`${server.baseUrl}/health/`, 5_000);
            probes.push({ at, ms: Date.now() - at, result });
            await sleep(25);
          }
        })();
        await Promise.all(answers);
        const lastAnswer = Math.max(...burst.map((w) => w.outcome!.endedAt));
        const ended = await Promise.race([exit, sleep(EXIT_MS + 20_000, null, { ref: false })]);
        await probing;
        assert.ok(ended, 'the server exited');
        assert.ok(await waitGroupGone(server.pid), 'every process of the server is gone');
        await server.stop();

        // In flight: each PATCH answered 200 with its own data, most of them after SIGTERM.
        for (const w of burst) {
          assert.equal(w.outcome!.status, 200, `in-flight ${w.data}: ${w.outcome!.status ?? w.outcome!.error} ${w.outcome!.text}`);
          assert.equal(w.outcome!.json.data, w.data, 'the normal answer, with the written data');
        }
        const afterTerm = burst.filter((w) => w.outcome!.endedAt > termAt).length;
        assert.ok(afterTerm >= BURST / 2, `requests in flight when SIGTERM came finished with 200 (${afterTerm} answered after it)`);

        // New connections: refused (or 503) from shortly after SIGTERM, never served again,
        // while the in-flight requests were still being answered.
        const firstRefusal = probes.find((p) => refused(p.result));
        assert.ok(firstRefusal, `new connections were refused: ${JSON.stringify(probes.slice(0, 5))}`);
        assert.ok(firstRefusal.at - termAt < 2_000, `refused within 2 s of SIGTERM (${firstRefusal.at - termAt} ms)`);
        assert.ok(firstRefusal.at < lastAnswer, 'refused while in-flight requests were still being answered');
        const servedLater = probes.filter((p) => p.at >= firstRefusal.at && !refused(p.result));
        assert.deepEqual(servedLater, [], 'once refused, no new connection is served');
        assert.ok(probes.filter((p) => p.at > termAt).every((p) => p.result === 200 || refused(p.result)), 'every probe answered 200 (before the close) or was refused');

        // The exit: code 0, promptly after the last in-flight answer.
        assert.deepEqual([ended.code, ended.signal], [0, null], 'the process exits with code 0');
        assert.ok(ended.at - lastAnswer < EXIT_MS, `it exits within ${EXIT_MS / 1000} s of the last answer (${ended.at - lastAnswer} ms)`);
        assert.equal(await probeNewConnection(`${server.baseUrl}/health/`), 'ECONNREFUSED', 'nothing listens any more');

        // What the in-flight writes did is whole: BURST versions and debits, chain intact.
        const next = await startTracked({ databaseUrl: database.url, workers: 1, env });
        try {
          const found = await assertWholeWrites(new Api(ws.user.token, 'token', next.baseUrl), ws, [...writes, ...burst], 1000, 1, { ordered: false });
          assert.equal(found.debits, COLUMNS + BURST, 'one debit per write');
          console.log(`# WORKERS=${workers}: ${afterTerm} of ${BURST} in-flight answers came after SIGTERM; first refusal ${firstRefusal.at - termAt} ms after it `
            + `(${firstRefusal.result}); exit ${ended.at - lastAnswer} ms after the last answer; ${probes.length} probes, the first: `
            + `${probes.slice(0, 4).map((p) => `${p.result} at +${p.at - termAt} ms in ${p.ms} ms`).join(', ')}`);
        } finally {
          await next.stop();
        }
      } finally {
        await database.drop();
      }
    });
  }
});
