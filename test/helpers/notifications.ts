// Helpers for the notification tests: paths, the spec's shapes, sending, reading an
// inbox, and a Server-Sent Events client for the live stream.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Api as ApiClass, http, withQuery, type Answer, type Api, type Query } from './http.ts';
import { assertKeys, assertPage, expectStatus, SID_RE, TIMESTAMP_RE } from './assertions.ts';
import { PROOF_SUBJECT, unique, type Serializer } from './factories.ts';
import { readMail } from './mail.ts';
import type { TestSmtpServer } from './smtp.ts';

/** How a test reads the tag of the proof mail a server sent to an address. */
export type ProofReader = (email: string) => Promise<string>;

/** The proof's tag from the .eml files a server writes under `dataDir`/mail. */
export const proofFromFiles = (dataDir: string): ProofReader => async (email) => {
  const mail = await readMail(email, { dataDir, subject: PROOF_SUBJECT });
  assert.ok(mail.verifyTag, mail.body);
  return mail.verifyTag;
};

/** The proof's tag from the messages a test SMTP server received. */
export const proofFromSmtp = (mailbox: TestSmtpServer): ProofReader => async (email) => {
  const proof = () => mailbox.to(email).find((m) => PROOF_SUBJECT.test(m.subject) && m.verifyTag);
  await mailbox.waitFor(() => proof() !== undefined, `the proof mail to ${email}`);
  return proof()!.verifyTag!;
};

export const notificationPaths = {
  list: (orgSid: string, serializer: Serializer | string = 'detail', query?: Query, level = 'organization') =>
    withQuery(`/notifications/notification/list/${level}/${encodeURIComponent(orgSid)}/${serializer}/`, query),
  detail: (sid: string) => `/notifications/notification/detail/${encodeURIComponent(sid)}/`,
  stream: (query?: Query) => withQuery('/notifications/notification/stream/', query),
};

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isBool: Check = (v) => typeof v === 'boolean';
const isSid: Check = (v) => typeof v === 'string' && SID_RE.test(v);
const isTimestamp: Check = (v) => typeof v === 'string' && TIMESTAMP_RE.test(v);
const isRef: Check = (v) => !!v && typeof v === 'object' && !Array.isArray(v)
  && Object.keys(v).sort().join() === 'name,sid' && isSid((v as any).sid) && isString((v as any).name);
const isRefOrNull: Check = (v) => v === null || isRef(v);

/** The spec's Notification table, key for key (`From` is capitalised). */
export const NOTIFICATION_SHAPES = {
  name: { sid: isSid, name: isString },
  list: { sid: isSid, name: isString, From: isRef, is_read: isBool, change_permission: isBool },
  detail: {
    sid: isSid, name: isString, From: isRef, parent: isRefOrNull, body: isString, rows: (v: unknown) => Array.isArray(v) && v.every(isRef),
    is_read: isBool, updated_by: (v: unknown) => v === null || isString(v), date_updated: isTimestamp, date_created: isTimestamp,
    change_permission: isBool,
  },
} satisfies Record<Serializer, Record<string, Check>>;

/** The record has exactly the shape's keys, each of the right type. */
export function assertNotification(record: unknown, shape: Serializer, context = ''): any {
  const checks = NOTIFICATION_SHAPES[shape] as Record<string, Check>;
  assertKeys(record, Object.keys(checks), `${context}: notification.${shape}`);
  for (const [key, check] of Object.entries(checks)) {
    const value = (record as Record<string, unknown>)[key];
    assert.ok(check(value), `${context}: notification.${shape}.${key} has the wrong type or form: ${JSON.stringify(value)}`);
  }
  return record;
}

/** A personnel record as `to` takes it. */
export const ref = (p: { sid: string; name: string }) => ({ sid: p.sid, name: p.name });

/** POST a notification from `api` to `recipients` (personnel records). Returns the answer. */
export function postNotification(
  api: Api, orgSid: string, recipients: { sid: string; name: string }[], extra: Record<string, unknown> = {}, serializer: Serializer = 'detail',
): Promise<Answer> {
  return api.post(notificationPaths.list(orgSid, serializer), {
    to: recipients.map(ref), name: `Subject ${unique('n')}`, body: 'A message', ...extra,
  });
}

/** POST and expect 201; returns the answer's body (the first recipient's copy). */
export async function sendNotification(api: Api, orgSid: string, recipients: { sid: string; name: string }[], extra: Record<string, unknown> = {}) {
  const res = await postNotification(api, orgSid, recipients, extra);
  expectStatus(res, 201, 'sending a notification');
  return res.json;
}

/** The caller's whole inbox in an organization (detail shape), newest first. */
export async function inbox(api: Api, orgSid: string, serializer: Serializer = 'detail'): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; page <= 100; page += 1) {
    const body = assertPage(await api.get(notificationPaths.list(orgSid, serializer, { page, page_size: 100 })));
    out.push(...body.results);
    if (body.next === null) return out;
  }
  throw new Error('more than 100 pages');
}

/** The caller's copy of the notification with subject `name` (asserts there is exactly one). */
export async function copyOf(api: Api, orgSid: string, name: string, context = ''): Promise<any> {
  const found = (await inbox(api, orgSid)).filter((n) => n.name === name);
  assert.equal(found.length, 1, `${context}: exactly one copy of "${name}" in the inbox, found ${found.length}`);
  return found[0];
}

/** The notifications with subject `name` in the caller's inbox. */
export async function copiesOf(api: Api, orgSid: string, name: string): Promise<any[]> {
  return (await inbox(api, orgSid)).filter((n) => n.name === name);
}

// ---------------------------------------------------------------- stream --

export interface StreamEvent {
  id: string | null;
  event: string;
  data: any;
}

export interface Stream {
  status: number;
  headers: Headers;
  events: StreamEvent[];
  /** Comment lines received (keep-alives, the greeting). */
  comments: string[];
  /** Whether the server ended the stream. */
  ended: boolean;
  /** Waits until an event matches; fails after `timeoutMs`. Returns it and how long it took. */
  waitFor(match: (e: StreamEvent) => boolean, what: string, timeoutMs?: number): Promise<{ event: StreamEvent; ms: number }>;
  /** Waits until the server ends the stream. */
  waitForEnd(timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens the live stream as `api` (with extra headers, e.g. Last-Event-ID). A non-200 answer is returned with no events. */
export function openStream(api: Api, query?: Query, headers: Record<string, string> = {}): Promise<Stream> {
  return openEventStream(api, notificationPaths.stream(query), headers);
}

/** Opens any event stream of the API at `target` (a path with its query) as `api`. A non-200 answer is returned with no events. */
export async function openEventStream(api: Api, target: string, headers: Record<string, string> = {}): Promise<Stream> {
  const controller = new AbortController();
  const sent: Record<string, string> = { accept: 'text/event-stream', ...headers };
  if (api.token) {
    if (api.scheme === 'token') sent.token = api.token;
    else sent.authorization = `${api.scheme} ${api.token}`;
  }
  const res = await fetch(api.baseUrl + target, { headers: sent, signal: controller.signal });
  const stream: Stream = {
    status: res.status,
    headers: res.headers,
    events: [],
    comments: [],
    ended: false,
    async waitFor(match, what, timeoutMs = 30_000) {
      const started = Date.now();
      for (;;) {
        const event = stream.events.find(match);
        if (event) return { event, ms: Date.now() - started };
        if (Date.now() - started > timeoutMs) {
          throw new Error(`${what}: no such event on the stream within ${timeoutMs} ms; got ${JSON.stringify(stream.events)}`);
        }
        if (stream.ended) throw new Error(`${what}: the stream ended; got ${JSON.stringify(stream.events)}`);
        await sleep(20);
      }
    },
    async waitForEnd(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!stream.ended) {
        if (Date.now() > deadline) throw new Error(`the stream did not end within ${timeoutMs} ms`);
        await sleep(20);
      }
    },
    close: () => controller.abort(),
  };
  if (res.status !== 200 || !res.body) {
    await res.text().catch(() => '');
    stream.ended = true;
    return stream;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          let id: string | null = null;
          let event = 'message';
          const data: string[] = [];
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length) stream.events.push({ id, event, data: JSON.parse(data.join('\n')) });
        }
      }
    } catch {
      // aborted by close(), or the connection dropped
    } finally {
      stream.ended = true;
    }
  })();
  return stream;
}

// ------------------------------------------------- a world on any server --

export interface Person {
  email: string;
  first_name: string;
  last_name: string;
  api: Api;
  personnel: { sid: string; name: string; [key: string]: unknown };
}

/**
 * An organization with an Admin and `members` Members on the server at `baseUrl` (an
 * extra server may have a database of its own, so the usual factories, which talk to
 * the harness's server, do not serve).
 */
export async function newOrganizationAt(
  baseUrl: string, members: number, label: string, readProof: ProofReader, options: { unaccepted?: number } = {},
): Promise<{ org: { sid: string; name: string }; admin: Person; members: Person[] }> {
  const signupAndLogin = async (who: string) => {
    const email = `${unique(`${label}${who}`)}@records.test`;
    const password = `Pw-${unique('p')}-9!`;
    const first_name = who.charAt(0).toUpperCase() + who.slice(1);
    const last_name = `Tester-${unique('t').slice(-4)}`;
    const signedUp = await http('POST', '/accounts/signup/', { baseUrl, body: { email, password, first_name, last_name } });
    expectStatus(signedUp, 201, `signup at ${baseUrl}`);
    // Proved as its owner would, with the mailed link (the accounts' subject here is not the proof).
    const tag = await readProof(email);
    expectStatus(await http('POST', '/accounts/verifyemail/', { baseUrl, query: { tag } }), 200, `proving ${email}`);
    const auth = await http('POST', '/accounts/auth/', { baseUrl, body: { username: email, password } });
    expectStatus(auth, 200, `login at ${baseUrl}`);
    return { sid: auth.json.user.sid as string, email, first_name, last_name, api: new ApiClass(auth.json.token, 'token', baseUrl) };
  };
  const owner = await signupAndLogin('admin');
  const created = await owner.api.post(`/organizations/organization/list/user/${owner.sid}/detail/`, { name: `Org ${unique('o')}` });
  expectStatus(created, 201, 'creating an organization');
  const org = created.json as { sid: string; name: string };
  const listed = await owner.api.get(`/organizations/personnel/list/organization/${org.sid}/detail/`);
  const admin: Person = { ...owner, personnel: listed.json.results[0] };
  const people: Person[] = [];
  for (let i = 0; i < members; i += 1) {
    const user = await signupAndLogin(`m${i}`);
    const added = await owner.api.post(`/organizations/personnel/list/organization/${org.sid}/detail/`, {
      email: user.email, first_name: user.first_name, last_name: user.last_name,
    });
    expectStatus(added, 201, 'adding a member');
    // Each accepts the organization, but the last `unaccepted` (docs/decisions.md, "Consent before mail").
    if (i < members - (options.unaccepted ?? 0)) {
      expectStatus(await user.api.post(`/organizations/personnel/detail/${added.json.sid}/accept/`), 200, 'the member accepts');
    }
    people.push({ ...user, personnel: added.json });
  }
  return { org, admin, members: people };
}
