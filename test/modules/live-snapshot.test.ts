// A stream is told only of access changes younger than itself (core/live/snapshot.ts): an
// access notice carries its transaction's id, and the hub skips one that the stream's
// opening snapshot sees. The LISTEN connection may hear a change a moment after its
// commit, when a stream opened meanwhile would otherwise report a change older than
// itself (the live-access and permissions tests met it). Proved here on the real engines:
// a transaction committed before the snapshot is seen, one still running when it was
// taken or begun after it is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { DB_KIND, TEST_DATABASE_URL } from '../helpers/env.ts';
import { committedBefore, parseSnapshot } from '../../src/core/live/snapshot.ts';

type Run = (text: string) => Promise<{ rows: Array<Record<string, string>> }>;

/** Begins a transaction that has an id, returning it. */
async function xidOf(run: Run): Promise<string> {
  await run('BEGIN');
  return (await run('SELECT pg_current_xact_id()::text AS xid')).rows[0].xid;
}

const snapshot = async (run: Run) => parseSnapshot((await run('SELECT pg_current_snapshot()::text AS s')).rows[0].s);

test('an access change committed before the opening snapshot is older than the stream; one running then, or begun after, is not', async () => {
  if (DB_KIND === 'pglite') {
    const db = new PGlite();
    const run: Run = (text) => db.query(text) as never;
    try {
      const before = await xidOf(run);
      await run('COMMIT');
      const opened = await snapshot(run);
      assert.ok(opened, 'the snapshot reads');
      const after = await xidOf(run);
      await run('COMMIT');
      assert.equal(committedBefore(before, opened), true, 'committed before');
      assert.equal(committedBefore(after, opened), false, 'begun after');
    } finally {
      await db.close();
    }
    return;
  }
  assert.ok(TEST_DATABASE_URL);
  const [a, b, c] = [0, 1, 2].map(() => new pg.Client({ connectionString: TEST_DATABASE_URL! }));
  await Promise.all([a, b, c].map((x) => x.connect()));
  const runOf = (client: pg.Client): Run => (text) => client.query(text);
  try {
    const before = await xidOf(runOf(a));
    await a.query('COMMIT');
    const running = await xidOf(runOf(b));
    const opened = await snapshot(runOf(c));
    assert.ok(opened, 'the snapshot reads');
    await b.query('COMMIT'); // committed after the stream opened: told
    const after = await xidOf(runOf(a));
    await a.query('COMMIT');
    assert.equal(committedBefore(before, opened), true, 'committed before');
    assert.equal(committedBefore(running, opened), false, 'running when the stream opened');
    assert.equal(committedBefore(after, opened), false, 'begun after');
  } finally {
    await Promise.all([a, b, c].map((x) => x.end()));
  }
});

test('a notice without a transaction id, or a snapshot that did not read, is always told', () => {
  const opened = parseSnapshot('100:105:102');
  assert.deepEqual(opened, { xmin: 100n, xmax: 105n, running: new Set([102n]) });
  assert.equal(committedBefore(undefined, opened), false);
  assert.equal(committedBefore('99', null), false);
  assert.equal(committedBefore('not a number', opened), false);
  assert.equal(committedBefore('99', opened), true);
  assert.equal(committedBefore('101', opened), true);
  assert.equal(committedBefore('102', opened), false);
  assert.equal(committedBefore('105', opened), false);
  assert.equal(parseSnapshot('garbage'), null);
});
