// The live machinery's own promises (docs/notifications.md "Live stream", docs/decisions.md
// "Live streams"): one credential holds at most LIVE_STREAMS_PER_CREDENTIAL open streams
// on a server, whichever of its processes holds them (issue 21, point 7: one token held
// 8,000); a change of a person's roles reaches their open streams at once — the
// notification stream says so (`event: access`) and a row stream hears from the very next
// write what the new role lets them read (issue 22, points 4 and 5).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expectStatus } from '../helpers/assertions.ts';
import { addMember, login, newOrganization, paths, postPersonnel } from '../helpers/factories.ts';
import { Api, withQuery } from '../helpers/http.ts';
import { notificationPaths, openEventStream, openStream, type Stream, type StreamEvent } from '../helpers/notifications.ts';
import { createCell, createRow, newWorkspace, recordPaths, type Workspace } from '../helpers/records.ts';

/** The documented default of LIVE_STREAMS_PER_CREDENTIAL (docs/configuration.md). */
const STREAMS_PER_CREDENTIAL = 16;
const ROW_STREAM = '/tables/row/stream/';

let ws: Workspace;
const streams: Stream[] = [];

async function track(opening: Promise<Stream>): Promise<Stream> {
  const s = await opening;
  streams.push(s);
  return s;
}

/** A stream request's answer: a refusal's status, headers and body; a stream that opens is closed at once (status 200). */
async function streamAnswer(api: Api, target: string): Promise<{ status: number; retryAfter: string | null; body: unknown }> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (api.scheme === 'token') headers.token = api.token!;
  else headers.authorization = `${api.scheme} ${api.token}`;
  const controller = new AbortController();
  const res = await fetch(api.baseUrl + target, { headers, signal: controller.signal });
  if (res.status === 200) {
    controller.abort();
    return { status: 200, retryAfter: null, body: null };
  }
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

const accessEvents = (s: Stream) => s.events.filter((e) => e.event === 'access').map((e) => e.data);
const ofRow = (rowSid: string) => (e: StreamEvent) => (e.event === 'row' || e.event === 'cell') && e.data.row === rowSid;

before(async () => {
  ws = await newWorkspace({ label: 'liveacc' });
});

after(() => {
  for (const s of streams) s.close();
});

describe('a bound on the live streams of one credential', () => {
  test(`one credential holds at most ${STREAMS_PER_CREDENTIAL} open streams, of every kind together: the next is 429 with Retry-After; another credential, or a stream closed, makes room`, async () => {
    const who = await addMember(ws.admin, ws.org, {}, 'lvbound');
    expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: who.personnel.sid, permission: 'view' }), 201);
    const open: Stream[] = [];
    for (let i = 0; i < STREAMS_PER_CREDENTIAL; i += 1) {
      const s = await track(i % 2 ? openStream(who.api) : openEventStream(who.api, withQuery(ROW_STREAM, { table__sid: ws.table.sid })));
      assert.equal(s.status, 200, `stream ${i + 1} opens`);
      open.push(s);
    }
    for (const [kind, target] of [['notification', notificationPaths.stream()], ['row', withQuery(ROW_STREAM, { table__sid: ws.table.sid })]] as const) {
      const refused = await streamAnswer(who.api, target);
      assert.equal(refused.status, 429, `one ${kind} stream too many`);
      assert.deepEqual(refused.body, {
        detail: `This credential holds ${STREAMS_PER_CREDENTIAL} open live streams, the most allowed: close one before opening another. Try again in 10 seconds.`,
      });
      assert.equal(refused.retryAfter, '10');
    }
    // The same person with another credential (a second sign-in) is not held by the first one's streams.
    const again = new Api(await login(who));
    const other = await track(openStream(again));
    assert.equal(other.status, 200, 'another credential opens a stream');
    // A stream closed frees its place (the server notices the client left).
    open[0].close();
    let reopened: Stream | null = null;
    for (let i = 0; i < 50 && reopened?.status !== 200; i += 1) {
      if (i) await sleep(100);
      reopened = await track(openStream(who.api));
    }
    assert.equal(reopened?.status, 200, 'a place freed by a closed stream is taken again');
    assert.equal((await streamAnswer(who.api, notificationPaths.stream())).status, 429, 'and the bound holds again');
  });
  test('a client that leaves before its stream opens gives its place back: after 40 such, the credential still opens all its streams', async () => {
    const who = await addMember(ws.admin, ws.org, {}, 'lvleave');
    const url = new URL(who.api.baseUrl + notificationPaths.stream());
    // Each request is written whole, then its socket is destroyed at once: the server meets a
    // client that is gone while it reads the credential and the route's data.
    await Promise.all(Array.from({ length: 40 }, () => new Promise<void>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.end(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\nAuthorization: Token ${who.api.token}\r\n\r\n`, () => socket.resetAndDestroy());
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    })));
    const opened: number[] = [];
    for (let i = 0; i < 50 && opened.length < STREAMS_PER_CREDENTIAL; i += 1) {
      const s = await track(openStream(who.api));
      if (s.status === 200) opened.push(i);
      else await sleep(100);
    }
    assert.equal(opened.length, STREAMS_PER_CREDENTIAL, `all ${STREAMS_PER_CREDENTIAL} places are free again`);
    assert.equal((await streamAnswer(who.api, notificationPaths.stream())).status, 429, 'and the bound holds');
  });
});

describe('a change of roles reaches the open streams at once', () => {
  test('the notification stream says so: given, changed and taken a project role, made Admin — each as event: access with the roles now; nobody else hears it', async () => {
    const who = await addMember(ws.admin, ws.org, {}, 'lvnotice');
    const s = await track(openStream(who.api, { organization__sid: ws.org.sid }));
    const bystander = await track(openStream(ws.projectView.api));
    assert.equal(s.status, 200);
    const given = expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: who.personnel.sid, permission: 'view' }), 201).json;
    await s.waitFor((e) => e.event === 'access', 'the role given');
    expectStatus(await ws.admin.api.patch(recordPaths.memberDetail(given.sid), { permission: 'edit' }), 200);
    await s.waitFor((e) => e.event === 'access' && e.data.permission === 'edit', 'the role changed');
    expectStatus(await ws.admin.api.delete(recordPaths.memberDetail(given.sid)), 200);
    await s.waitFor((e) => e.event === 'access' && e.data.permission === null, 'the role taken');
    expectStatus(await ws.admin.api.patch(paths.personnelDetail(who.personnel.sid), { is_administrator: 'true' }), 200);
    await s.waitFor((e) => e.event === 'access' && e.data.role === 'admin', 'made Admin');
    const project = { organization: ws.org.sid, project: ws.project.sid, role: 'member' };
    assert.deepEqual(accessEvents(s), [
      { ...project, permission: 'view' },
      { ...project, permission: 'edit' },
      { ...project, permission: null },
      { organization: ws.org.sid, project: null, role: 'admin', permission: null },
    ], 'each change once, with the roles it left');
    assert.equal(s.events.filter((e) => e.event === 'access').every((e) => e.id === null), true, 'access events carry no id (Last-Event-ID stays the last notification\'s)');
    assert.deepEqual(accessEvents(bystander), [], 'another member hears nothing of it');
    assert.equal(s.ended, false);
  });

  test('a row stream hears the very next write of a project whose role was just given, and nothing after the role is taken away', async () => {
    const who = await addMember(ws.admin, ws.org, {}, 'lvrows');
    const s = await track(openEventStream(who.api, withQuery(ROW_STREAM, { table__sid: ws.table.sid })));
    assert.equal(s.status, 200);
    const given = expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: who.personnel.sid, permission: 'view' }), 201).json;
    // Written right after the role's answer: the stream's standing is the new one already.
    const row = await createRow(ws, { name: 'Seen at once' });
    await s.waitFor(ofRow(row.sid), 'the row written right after the role was given');
    expectStatus(await ws.admin.api.delete(recordPaths.memberDetail(given.sid)), 200);
    await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'after the role was taken');
    // A later row the viewer may read marks the end of what was sent in between.
    const marker = await createRow(ws, { name: 'Marker' });
    expectStatus(await ws.admin.api.post(recordPaths.memberList(ws.project.sid), { personnel: who.personnel.sid, permission: 'view' }), 201);
    const later = await createRow(ws, { name: 'Seen again' });
    await s.waitFor(ofRow(later.sid), 'the row after the role was given again');
    assert.deepEqual(s.events.map((e) => [e.event, e.data.row]), [['row', row.sid], ['row', later.sid]],
      'nothing of the project between the role taken and given again');
    assert.ok(marker.sid, 'the marker row was written');
    assert.equal(s.ended, false, 'a stream of the table stays open');
  });

  test('joining another organization reaches a stream limited to this one; archived here, the stream ends at once with why', async () => {
    const who = await addMember(ws.admin, ws.org, {}, 'lvjoin');
    const s = await track(openStream(who.api, { organization__sid: ws.org.sid }));
    assert.equal(s.status, 200);
    const { admin: otherAdmin, org: other } = await newOrganization('lvother');
    expectStatus(await postPersonnel(otherAdmin.api, other.sid, { email: who.email }), 201, 'added to another organization');
    await s.waitFor((e) => e.event === 'access' && e.data.organization === other.sid, 'the other organization');
    expectStatus(await ws.admin.api.patch(paths.personnelDetail(who.personnel.sid), { is_archived: 'true' }), 200, 'archived here');
    await s.waitForEnd(6_000);
    assert.deepEqual(accessEvents(s), [{ organization: other.sid, project: null, role: 'member', permission: null }]);
    assert.deepEqual(s.events.at(-1), { id: null, event: 'end', data: { detail: 'You are no longer an active member of the organization.' } });
  });
});
