// A stuck database (on PostgreSQL): a transaction outside the service holds a row's lock
// and does not end. A write that needs the row is cancelled after STATEMENT_TIMEOUT_SECONDS
// (here 2) and answers 503 with Retry-After, never hangs; reads that do not need the
// lock go on; the refused write left nothing behind (no cell change, version or debit);
// once the lock is released the same server writes the row again.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { recordPaths } from '../helpers/records.ts';
import { attempt, freshDatabase, pricedWorkspace, startTracked, undoAll } from './lib.ts';

const TIMEOUT_SECONDS = 2;

after(undoAll);

describe('a stuck database (PostgreSQL)', () => {
  test(`a write blocked past STATEMENT_TIMEOUT_SECONDS answers 503 with Retry-After; reads go on; nothing is half written; it recovers`, { timeout: 90_000 }, async () => {
    const database = await freshDatabase('stuck');
    try {
      const server = await startTracked({
        databaseUrl: database.url, workers: 1, env: { INITIAL_CREDITS: '10.00', STATEMENT_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS) },
      });
      const ws = await pricedWorkspace(server, { label: 'stuck', price: '0.25', columns: 1, rows: 1 });
      const row = ws.rows[0];
      const created = await attempt('POST', server.baseUrl + recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), {
        token: ws.user.token, body: { column: ws.priced[0].sid, data: 'before' },
      });
      assert.equal(created.status, 201, created.text);
      const cell = created.json.sid as string;
      const versionsOf = async () => (await attempt('GET', server.baseUrl + recordPaths.versionList(ws.org.sid, 'list', { row__sid: row.sid }), { token: ws.user.token })).json.count;
      const versionsBefore = await versionsOf();

      const blocker = new pg.Client({ connectionString: database.url });
      await blocker.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT sid FROM record_rows WHERE sid = $1 FOR UPDATE', [row.sid]);

        const blocked = await attempt('PATCH', server.baseUrl + recordPaths.cellDetail(cell), {
          token: ws.user.token, body: { data: 'during' }, timeoutMs: 30_000,
        });
        assert.equal(blocked.status, 503, `the blocked write: ${blocked.status ?? blocked.error} ${blocked.text}`);
        assert.ok(blocked.ms >= TIMEOUT_SECONDS * 1000 - 100 && blocked.ms < TIMEOUT_SECONDS * 1000 + 3_000,
          `answered after the statement timeout, not later (${blocked.ms} ms)`);
        assert.ok(Number(blocked.headers?.get('retry-after')) > 0, 'with Retry-After');
        assert.deepEqual(Object.keys(blocked.json), ['detail'], 'the API\'s error body, no driver text');

        const read = await attempt('GET', server.baseUrl + recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { token: ws.user.token });
        assert.equal(read.status, 200, `reads go on meanwhile: ${read.text}\n${server.logTail(30)}`);
        assert.equal(read.json.results[0].data, 'before', 'the blocked write changed nothing');
        const health = await attempt('GET', `${server.baseUrl}/health/`);
        assert.equal(health.status, 200, 'the database answers: /health/ is 200');
      } finally {
        await blocker.query('ROLLBACK').catch(() => {});
        await blocker.end();
      }

      assert.equal(await versionsOf(), versionsBefore, 'no version was appended by the blocked write');
      const ledger = await attempt('GET', server.baseUrl + recordPaths.creditList(ws.org.sid, 'detail', { page_size: 100 }), { token: ws.user.token });
      assert.equal(ledger.status, 200, ledger.text);
      const debits = ledger.json.results.filter((e: { cell: string | null }) => e.cell === cell);
      assert.equal(debits.length, 1, 'one debit: the POST; none for the blocked PATCH');

      const after = await attempt('PATCH', server.baseUrl + recordPaths.cellDetail(cell), { token: ws.user.token, body: { data: 'after' } });
      assert.equal(after.status, 200, `once the lock is gone the same server writes again: ${after.text}`);
      assert.equal(after.json.data, 'after');
      assert.equal(await versionsOf(), versionsBefore + 1);
      await server.stop();
    } finally {
      await database.drop();
    }
  });
});
