// The live stream of notifications (docs/notifications.md, Live stream): Server-Sent
// Events authenticated like every request, each new notification pushed to its recipient
// at once (how fast: the bench), only theirs; Last-Event-ID catches up; on PostgreSQL a notification
// created through another server process arrives too, also after the LISTEN connection
// was cut; shutting a server down ends its open streams at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { DATA_DIR, DB_KIND, TEST_DATABASE_URL } from '../helpers/env.ts';
import { expectNotAuthenticated, expectInvalidToken, expectStatus } from '../helpers/assertions.ts';
import { addMember, newOrganization, paths, postPersonnel, unique, type TestMember } from '../helpers/factories.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { createCell, createRow, newWorkspace } from '../helpers/records.ts';
import { anonymous, Api } from '../helpers/http.ts';
import {
  assertNotification, newOrganizationAt, proofFromFiles, notificationPaths, openStream, sendNotification, type Stream,
} from '../helpers/notifications.ts';

let admin: TestMember;
let org: { sid: string; name: string };
let alice: TestMember;
let carol: TestMember;
const streams: Stream[] = [];

async function stream(api: Api, query?: Record<string, string>, headers?: Record<string, string>): Promise<Stream> {
  const s = await openStream(api, query, headers);
  streams.push(s);
  return s;
}

before(async () => {
  ({ admin, org } = await newOrganization('live'));
  alice = await addMember(admin, org, {}, 'alice');
  carol = await addMember(admin, org, {}, 'carol');
});

after(() => {
  for (const s of streams) s.close();
});

describe('the stream is authenticated like every request', () => {
  test('no token 401, an unknown token 401; token, Authorization: Token and an API key as Bearer open it', async () => {
    const none = await anonymous.get(notificationPaths.stream());
    expectNotAuthenticated(none, 'no token');
    expectInvalidToken(await new Api('not-a-token').get(notificationPaths.stream()), 'unknown token');
    for (const api of [alice.api, alice.api.via('Token')]) {
      const s = await stream(api);
      assert.equal(s.status, 200, `opened with ${api.scheme}`);
      assert.match(s.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.equal(s.headers.get('cache-control'), 'no-store');
      s.close();
    }
    const key = await alice.api.post(paths.apikeyList(alice.sid, 'detail'), { name: 'stream' });
    expectStatus(key, 201, 'an API key');
    const viaKey = await stream(new Api(key.json.key, 'Bearer'));
    assert.equal(viaKey.status, 200, 'opened with an API key');
    const name = `Bearer ${unique('b')}`;
    await sendNotification(admin.api, org.sid, [alice.personnel], { name });
    await viaKey.waitFor((e) => e.data.name === name, 'the notification on the API key\'s stream');
    viaKey.close();
    expectStatus(await alice.api.post(notificationPaths.stream(), {}), 405, 'POST is not offered');
  });

  test('?organization__sid= of an organization the caller does not belong to: 403; that does not exist: 406', async () => {
    const { org: other } = await newOrganization('elsewhere');
    expectStatus(await alice.api.get(notificationPaths.stream({ organization__sid: other.sid })), 403, 'not a member');
    expectStatus(await alice.api.get(notificationPaths.stream({ organization__sid: 'AAAAAAAAAAAAAAAA' })), 406, 'no such organization');
  });
});

describe('live delivery', () => {
  test('a new notification reaches its recipient at once (its stream, no reload), as `event: notification` in the list shape, and nobody else', async () => {
    const [aliceStream, carolStream, senderStream] = await Promise.all([stream(alice.api), stream(carol.api), stream(admin.api)]);
    assert.ok(aliceStream.comments.includes('connected') || aliceStream.status === 200);
    const name = `Live ${unique('l')}`;
    const sent = await sendNotification(admin.api, org.sid, [alice.personnel], { name });
    const { event } = await aliceStream.waitFor((e) => e.data.name === name, 'alice\'s notification', 30_000);
    assert.equal(event.event, 'notification');
    assert.equal(event.id, sent.sid, 'the event id is the notification\'s sid');
    assertNotification(event.data, 'list', 'event data');
    assert.deepEqual(event.data, {
      sid: sent.sid, name, From: { sid: admin.personnel.sid, name: admin.personnel.name }, is_read: false, change_permission: true,
    });
    await sleep(500);
    assert.equal(carolStream.events.filter((e) => e.data.name === name).length, 0, 'a member who is not a recipient hears nothing');
    assert.equal(senderStream.events.filter((e) => e.data.name === name).length, 0, 'the sender hears nothing');
    assert.equal(aliceStream.events.filter((e) => e.data.name === name).length, 1, 'exactly once');
  });

  test('only the caller\'s organizations: ?organization__sid= limits the stream to one', async () => {
    // alice also belongs to a second organization.
    const { admin: otherAdmin, org: other } = await newOrganization('second');
    const added = await postPersonnel(otherAdmin.api, other.sid, { email: alice.email, first_name: 'Alice', last_name: 'Second' });
    expectStatus(added, 201, 'alice joins a second organization');
    const all = await stream(alice.api);
    const onlyFirst = await stream(alice.api, { organization__sid: org.sid });
    const here = `Here ${unique('h')}`;
    const there = `There ${unique('t')}`;
    await sendNotification(admin.api, org.sid, [alice.personnel], { name: here });
    await sendNotification(otherAdmin.api, other.sid, [added.json], { name: there });
    await all.waitFor((e) => e.data.name === here, 'first organization');
    await all.waitFor((e) => e.data.name === there, 'second organization');
    await onlyFirst.waitFor((e) => e.data.name === here, 'first organization on the limited stream');
    await sleep(500);
    assert.equal(onlyFirst.events.filter((e) => e.data.name === there).length, 0, 'the limited stream hears nothing of the other organization');
  });

  test('mentions and record changes arrive live too', async () => {
    const rs = await newWorkspace({ label: 'livem' });
    const s = await stream(rs.projectEdit.api);
    const row = await createRow(rs);
    await createCell(rs.projectAdmin.api, rs.org.sid, row.sid, rs.columns.text.sid, `@${rs.projectEdit.personnel.sid} look`);
    const { event } = await s.waitFor((e) => / mentioned you in /.test(e.data.name), 'the mention');
    assert.equal(event.data.From.sid, rs.projectAdmin.personnel.sid);
  });

  test('reconnecting with Last-Event-ID first sends what was missed, once', async () => {
    const first = await stream(alice.api);
    const names = [0, 1, 2].map((i) => `Missed ${i} ${unique('m')}`);
    await sendNotification(admin.api, org.sid, [alice.personnel], { name: names[0] });
    const { event: seen } = await first.waitFor((e) => e.data.name === names[0], 'the first');
    first.close();
    await sendNotification(admin.api, org.sid, [alice.personnel], { name: names[1] });
    await sendNotification(carol.api, org.sid, [alice.personnel], { name: names[2] });
    const again = await stream(alice.api, undefined, { 'last-event-id': seen.id! });
    await again.waitFor((e) => e.data.name === names[2], 'the missed ones');
    const got = again.events.map((e) => e.data.name).filter((n) => names.includes(n));
    assert.deepEqual(got, [names[1], names[2]], 'the missed notifications, oldest first, not the one seen');
  });
});

// PostgreSQL only (PGlite serves one process): not registered in the PGlite pass.
if (DB_KIND === 'postgres') describe('several server processes (PostgreSQL)', () => {
  let second: RunningServer;
  before(async () => {
    // Same database and DATA_DIR as the harness's server: mail it delivers lands where the other tests look.
    second = await startServer({ dataDir: DATA_DIR });
  });
  after(async () => {
    await second?.stop();
  });

  test('a notification created through one process reaches a stream held by the other, both ways', async () => {
    const onSecond = await stream(alice.api.at(second.baseUrl));
    const onFirst = await stream(alice.api);
    for (const [via, label] of [[admin.api, 'first'], [admin.api.at(second.baseUrl), 'second']] as const) {
      const name = `Across ${label} ${unique('a')}`;
      await sendNotification(via, org.sid, [alice.personnel], { name });
      await onSecond.waitFor((e) => e.data.name === name, `on the second process, sent through the ${label}`, 30_000);
      await onFirst.waitFor((e) => e.data.name === name, `on the first process, sent through the ${label}`, 30_000);
    }
  });

  test('after the database cuts the LISTEN connections, streams stay open and miss nothing', async () => {
    const onSecond = await stream(alice.api.at(second.baseUrl));
    const warmup = `Before ${unique('w')}`;
    await sendNotification(admin.api, org.sid, [alice.personnel], { name: warmup });
    await onSecond.waitFor((e) => e.data.name === warmup, 'before the cut');
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL! });
    await client.connect();
    try {
      // Each process's one LISTEN connection (core/live/listener.ts) ran LISTEN last, on
      // whichever channel was added last: it is the connection whose last statement is a LISTEN.
      const cut = await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`);
      assert.ok(cut.rowCount! >= 2, `the LISTEN connections of both servers were cut (${cut.rowCount})`);
    } finally {
      await client.end();
    }
    const during = `During ${unique('d')}`;
    await sendNotification(admin.api, org.sid, [alice.personnel], { name: during });
    await onSecond.waitFor((e) => e.data.name === during, 'sent while the process was reconnecting', 15_000);
    await sleep(1_000);
    const afterwards = `After ${unique('a')}`;
    await sendNotification(admin.api, org.sid, [alice.personnel], { name: afterwards });
    await onSecond.waitFor((e) => e.data.name === afterwards, 'after the reconnect', 30_000);
    assert.equal(onSecond.events.filter((e) => e.data.name === during).length, 1, 'the one sent meanwhile arrived once');
    assert.equal(onSecond.ended, false, 'the stream stayed open');
  });
});

describe('keep-alive and shutdown', () => {
  test('a comment every 15 seconds keeps the stream open', async () => {
    const s = await stream(carol.api);
    const deadline = Date.now() + 17_000;
    while (!s.comments.includes('keep-alive') && Date.now() < deadline) await sleep(200);
    assert.ok(s.comments.includes('keep-alive'), `a keep-alive comment within 17 s; got ${JSON.stringify(s.comments)}`);
    assert.equal(s.ended, false);
  });

  test('stopping a server ends its open streams at once and the process exits promptly', async () => {
    const server = await startServer(DB_KIND === 'postgres' ? { dataDir: DATA_DIR } : {});
    try {
      const world = await newOrganizationAt(server.baseUrl, 1, 'stop', proofFromFiles(server.dataDir));
      const s = await stream(world.members[0].api);
      assert.equal(s.status, 200);
      const started = Date.now();
      await server.stop();
      const ms = Date.now() - started;
      await s.waitForEnd(1_000);
      assert.ok(ms < 8_000, `the server stopped in ${ms} ms with a stream open (it is killed after 10 s)`);
    } finally {
      await server.stop();
    }
  });
});
