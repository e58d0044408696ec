// An open live stream ends within seconds of its credential or its membership ending
// (issue 12, point 3): logout, an API key deleted, a password reset, the member archived,
// the member's date_end in the past. On PostgreSQL the stream is held by a server process
// of its own while the revocation goes through the harness's servers, so the check works
// across processes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DB_KIND } from '../helpers/env.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { addMember, isoDay, newOrganization, newUser, paths, PATHS, strongPassword, type TestMember } from '../helpers/factories.ts';
import { anonymous, Api } from '../helpers/http.ts';
import { readMail } from '../helpers/mail.ts';
import { openStream, sendNotification, type Stream } from '../helpers/notifications.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

/** The check runs every 2 s: the stream must end well within a few seconds. */
const END_MS = 6_000;

let admin: TestMember;
let org: { sid: string; name: string };
let streamServer: RunningServer | null = null;
const streams: Stream[] = [];

before(async () => {
  ({ admin, org } = await newOrganization('revoke'));
  // PGlite admits one process per data folder: there the harness's server holds the stream.
  if (DB_KIND === 'postgres') streamServer = await startServer();
});

after(async () => {
  for (const s of streams) s.close();
  await streamServer?.stop();
});

/** Opens `api`'s stream on the stream server and proves it delivers. */
async function liveStream(who: TestMember, api: Api = who.api): Promise<Stream> {
  const s = await openStream(streamServer ? api.at(streamServer.baseUrl) : api, { organization__sid: org.sid });
  streams.push(s);
  assert.equal(s.status, 200, 'the stream opens');
  const sent = await sendNotification(admin.api, org.sid, [who.personnel], { name: `Before ${Date.now()}` });
  await s.waitFor((e) => e.event === 'notification' && e.data.name === sent.name, 'a notification before the revocation');
  return s;
}

/** The stream ends within END_MS with an `end` event saying why, and nothing more is delivered. */
async function assertEnds(s: Stream, who: TestMember, reason: string, context: string) {
  const started = Date.now();
  await s.waitForEnd(END_MS).catch((err) => assert.fail(`${context}: ${(err as Error).message}`));
  const last = s.events[s.events.length - 1];
  assert.deepEqual(last, { id: null, event: 'end', data: { detail: reason } }, `${context}: an end event says why`);
  const count = s.events.length;
  await sendNotification(admin.api, org.sid, [who.personnel], { name: `After ${Date.now()}` }).catch(() => undefined);
  assert.equal(s.events.length, count, `${context}: nothing delivered after the end`);
  return Date.now() - started;
}

describe('an open stream ends when its credential ends', () => {
  test('logout', async () => {
    const who = await addMember(admin, org, {}, 'rvlogout');
    const s = await liveStream(who);
    expectStatus(await who.api.get(PATHS.logout), 200, 'logout');
    await assertEnds(s, who, 'Invalid token.', 'logout');
  });

  test('the API key it was opened with is deleted', async () => {
    const who = await addMember(admin, org, {}, 'rvkey');
    const key = expectStatus(await who.api.post(paths.apikeyList(who.sid), { name: 'stream key' }), 201).json;
    const viaKey = new Api(key.key, 'Bearer');
    const s = await liveStream(who, viaKey);
    // A stream on the member's session token is not affected by the key's deletion.
    const other = await liveStream(who);
    expectStatus(await who.api.delete(paths.apikeyDetail(key.sid)), 200, 'the key is deleted');
    await assertEnds(s, who, 'Invalid token.', 'API key deleted');
    assert.equal(other.ended, false, 'the session token\'s stream stays open');
    const sent = await sendNotification(admin.api, org.sid, [who.personnel], { name: `Still ${Date.now()}` });
    await other.waitFor((e) => e.data?.name === sent.name, 'the other stream still delivers');
  });

  test('a password reset (every session token of the account ends)', async () => {
    const who = await addMember(admin, org, {}, 'rvreset');
    const s = await liveStream(who);
    expectStatus(await anonymous.post(PATHS.forgetpassword, { email: who.email }), 200);
    const mail = await readMail(who.email, { subject: /^Reset/ }); // (after the invitation)
    expectStatus(await anonymous.post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: mail.tag } }), 200, 'reset');
    await assertEnds(s, who, 'Invalid token.', 'password reset');
  });
});

describe('an open stream ends when the membership ends', () => {
  test('the member is archived', async () => {
    const who = await addMember(admin, org, {}, 'rvarchive');
    const s = await liveStream(who);
    expectStatus(await admin.api.patch(paths.personnelDetail(who.personnel.sid), { is_archived: 'true' }), 200, 'archived');
    await assertEnds(s, who, 'You are no longer an active member of the organization.', 'archived');
  });

  test('the member\'s date_end is in the past', async () => {
    const who = await addMember(admin, org, {}, 'rvdateend');
    const s = await liveStream(who);
    expectStatus(await admin.api.patch(paths.personnelDetail(who.personnel.sid), { date_start: isoDay(-30), date_end: isoDay(-1) }), 200, 'date_end yesterday');
    await assertEnds(s, who, 'You are no longer an active member of the organization.', 'date_end passed');
  });

  test('a stream opened by someone of no organization has none to lose: it stays open until its credential ends', async () => {
    const loner = await newUser('rvnoorg');
    const s = await openStream(streamServer ? loner.api.at(streamServer.baseUrl) : loner.api);
    streams.push(s);
    assert.equal(s.status, 200, 'the stream opens');
    // Give the check time to run twice: the stream is still open.
    await new Promise((r) => setTimeout(r, 4_500));
    assert.equal(s.ended, false, 'the membership check does not end it');
    expectStatus(await loner.api.get(PATHS.logout), 200, 'logout');
    await s.waitForEnd(END_MS);
    assert.deepEqual(s.events.at(-1), { id: null, event: 'end', data: { detail: 'Invalid token.' } });
  });

  test('a stream of every organization stays open, and delivers, for the organizations still active', async () => {
    const who = await addMember(admin, org, {}, 'rvmulti');
    const other = await newOrganization('revoke2');
    const there = expectStatus(await other.admin.api.post(paths.personnelList(other.org.sid, 'detail'), { email: who.email }), 201).json;
    const s = await openStream(streamServer ? who.api.at(streamServer.baseUrl) : who.api);
    streams.push(s);
    const first = await sendNotification(admin.api, org.sid, [who.personnel], { name: `Multi ${Date.now()}` });
    await s.waitFor((e) => e.data?.name === first.name, 'from the first organization');
    expectStatus(await admin.api.patch(paths.personnelDetail(who.personnel.sid), { is_archived: 'true' }), 200, 'archived in the first');
    // Give the check time to run twice, then: nothing more from the first, still from the second.
    await new Promise((r) => setTimeout(r, 4_500));
    const count = s.events.length;
    await sendNotification(admin.api, org.sid, [who.personnel], { name: `Left ${Date.now()}` }).catch(() => undefined);
    const second = await sendNotification(other.admin.api, other.org.sid, [there], { name: `Other ${Date.now()}` });
    await s.waitFor((e) => e.data?.name === second.name, 'from the second organization');
    assert.deepEqual(s.events.slice(count).map((e) => e.data?.name), [second.name], 'only the second organization\'s notification');
    assert.equal(s.ended, false);
  });
});
