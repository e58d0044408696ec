// A server killed outright (SIGKILL of its whole process group: no shutdown code runs) in
// the middle of a burst of priced cell writes on PostgreSQL. A new server on the same
// database must find every acknowledged write whole and nothing half written: each cell
// change is one version and one debit, every chain verifies, the credits add up.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Api } from '../helpers/http.ts';
import { acknowledged, assertWholeWrites, writeRow, type Write } from './consistency.ts';
import { freshDatabase, pricedWorkspace, startTracked, undoAll, waitGroupGone } from './lib.ts';

const ROWS = 12;
const COLUMNS = 6;
/** Kill once this many writes were acknowledged; every writer has one more in flight. */
const KILL_AFTER = 80;
const OPENING = '50.00';

after(undoAll);

describe('SIGKILL in a burst of cell writes (PostgreSQL)', () => {
  for (const workers of [1, 2]) {
    test(`WORKERS=${workers}: every acknowledged write is whole after a restart; no half write, no debit without a version; chains verify; credits add up`, async () => {
      const database = await freshDatabase('kill');
      const env = { INITIAL_CREDITS: OPENING };
      const first = await startTracked({ databaseUrl: database.url, workers, env });
      const ws = await pricedWorkspace(first, { label: 'killed', price: '0.01', columns: COLUMNS, rows: ROWS });

      const writes: Write[] = [];
      let killedAt = 0;
      let inFlightAtKill = 0;
      const kill = () => {
        killedAt = Date.now();
        inFlightAtKill = writes.filter((w) => w.outcome === null).length;
        process.kill(-first.pid, 'SIGKILL');
      };
      const writers = ws.rows.map((_row, i) => writeRow(ws, i, writes, {
        baseUrl: first.baseUrl,
        stop: () => killedAt > 0,
        onAnswer: () => {
          if (!killedAt && writes.filter(acknowledged).length >= KILL_AFTER) kill();
        },
      }));
      // A bound: if the burst stalls, kill anyway (the assertions below then say what went wrong).
      const bound = setTimeout(() => killedAt || kill(), 60_000);
      await Promise.all(writers);
      clearTimeout(bound);
      const exit = await first.exit;
      assert.equal(exit.signal, 'SIGKILL', `the server was killed (exit ${JSON.stringify(exit)}):\n${first.logTail(30)}`);
      assert.ok(await waitGroupGone(first.pid), 'every process of the killed server is gone');
      await first.stop();

      const beforeKill = writes.filter((w) => w.outcome!.endedAt < killedAt);
      assert.deepEqual(beforeKill.filter((w) => !acknowledged(w)).map((w) => `${w.op} ${w.data}: ${w.outcome!.status} ${w.outcome!.text}`), [],
        'every write answered before the kill succeeded');
      assert.ok(inFlightAtKill >= ROWS / 2, `writes were in flight when the server was killed (${inFlightAtKill})`);
      assert.ok(writes.some((w) => w.outcome!.status === null), 'some writes got no answer');

      const second = await startTracked({ databaseUrl: database.url, workers, env });
      try {
        const found = await assertWholeWrites(new Api(ws.user.token, 'token', second.baseUrl), ws, writes, 5000, 1);
        assert.ok(found.acknowledged >= KILL_AFTER, `at least ${KILL_AFTER} writes were acknowledged (${found.acknowledged})`);
        console.log(`# WORKERS=${workers}: ${found.acknowledged} acknowledged, ${found.unanswered} without an answer `
          + `(${found.unansweredCommitted} of those committed), ${found.versions} versions, ${found.debits} debits`);
      } finally {
        await second.stop();
        await database.drop();
      }
    });
  }
});
