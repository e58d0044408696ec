// Factories: fresh users, organizations and members with unique emails, so every test
// file works on its own records and files can run side by side on one server.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Api, anonymous, describeAnswer, withQuery, type Answer, type Query } from './http.ts';
import { assertPage, expectStatus } from './assertions.ts';
import { readMail } from './mail.ts';
import { BASE_URL, DATA_DIR } from './env.ts';

// ------------------------------------------------------------------- paths --

export type Serializer = 'name' | 'list' | 'detail';

export const PATHS = {
  health: '/health/',
  signup: '/accounts/signup/',
  auth: '/accounts/auth/',
  checktoken: '/accounts/checktoken/',
  logout: '/accounts/logout/',
  forgetpassword: '/accounts/forgetpassword/',
  resetpassword: '/accounts/resetpassword/',
  verifyemail: '/accounts/verifyemail/',
  resendproof: '/accounts/verifyemail/resend/',
  openapi: '/openapi.json',
  docs: '/docs/',
} as const;

export const paths = {
  personnelList: (orgSid: string, serializer: Serializer | string = 'detail', query?: Query, level = 'organization') =>
    withQuery(`/organizations/personnel/list/${level}/${encodeURIComponent(orgSid)}/${serializer}/`, query),
  personnelDetail: (sid: string) => `/organizations/personnel/detail/${encodeURIComponent(sid)}/`,
  organizationList: (userSid: string, serializer: Serializer | string = 'detail', query?: Query, level = 'user') =>
    withQuery(`/organizations/organization/list/${level}/${encodeURIComponent(userSid)}/${serializer}/`, query),
  organizationDetail: (sid: string) => `/organizations/organization/detail/${encodeURIComponent(sid)}/`,
  apikeyList: (userSid: string, serializer: Serializer | string = 'detail', query?: Query, level = 'user') =>
    withQuery(`/accounts/apikey/list/${level}/${encodeURIComponent(userSid)}/${serializer}/`, query),
  apikeyDetail: (sid: string) => `/accounts/apikey/detail/${encodeURIComponent(sid)}/`,
};

// ------------------------------------------------------------------ values --

let counter = 0;

/** A short token unique across processes and runs, for names and emails. */
export function unique(label = 'x'): string {
  counter += 1;
  return `${label}-${process.pid.toString(36)}${Date.now().toString(36)}${counter}${randomBytes(3).toString('hex')}`.toLowerCase();
}

export function uniqueEmail(label = 'user'): string {
  return `${unique(label)}@records.test`;
}

export function strongPassword(): string {
  return `Pw-${randomBytes(12).toString('base64url')}-9!`;
}

/** A date `days` from today (negative: in the past), as YYYY-MM-DD in UTC. */
export function isoDay(days = 0): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

// ---------------------------------------------------------------- accounts --

export interface TestUser {
  sid: string;
  email: string;
  password: string;
  first_name: string;
  last_name: string;
  token: string;
  api: Api;
}

/** A user who is also personnel of an organization. */
export interface TestMember extends TestUser {
  personnel: any;
}

export function signup(fields: unknown): Promise<Answer> {
  return anonymous.post(PATHS.signup, fields);
}

export function authenticate(username: string, password: string): Promise<Answer> {
  return anonymous.post(PATHS.auth, { username, password });
}

/** A new session token for the user (asserts 200). */
export async function login(user: { email: string; password: string }): Promise<string> {
  const res = await authenticate(user.email, user.password);
  expectStatus(res, 200, `login of ${user.email}`);
  return res.json.token as string;
}

/** The subject of the mail that proves an address. */
export const PROOF_SUBJECT = /^Prove your email address/;

/**
 * Proves `email` the way its owner would: reads the proof mail the server sent to it and
 * POSTs its tag to /accounts/verifyemail/. `server`: another server than the harness's.
 */
export async function proveEmail(email: string, server: { baseUrl: string; dataDir: string } = { baseUrl: BASE_URL, dataDir: DATA_DIR }): Promise<void> {
  const mail = await readMail(email, { dataDir: server.dataDir, subject: PROOF_SUBJECT });
  assert.ok(mail.verifyTag, `the proof mail to ${email} carries a /accounts/verifyemail/?tag= link:\n${mail.body}`);
  const res = await anonymous.at(server.baseUrl).post(PATHS.verifyemail, undefined, { query: { tag: mail.verifyTag } });
  expectStatus(res, 200, `proving ${email}`);
}

/**
 * Asserts that `email` has no account: a signup with it (answered 201 either way) mails
 * it the proof of a new account, not the notice that it already has one.
 */
export async function expectNoAccount(email: string): Promise<void> {
  expectStatus(await signup({ email, password: strongPassword() }), 201, `signup with ${email}`);
  const mail = await readMail(email);
  assert.match(mail.subject, PROOF_SUBJECT, `${email} must not have had an account (the signup mailed "${mail.subject}")`);
}

/**
 * Signs up a fresh user with a unique email, proves the email by the mailed link (as a
 * person would) and logs in. `server`: another server than the harness's.
 */
export async function newUser(label = 'user', server?: { baseUrl: string; dataDir: string }): Promise<TestUser> {
  const email = uniqueEmail(label);
  const password = strongPassword();
  const first_name = label.charAt(0).toUpperCase() + label.slice(1);
  const last_name = `Tester-${randomBytes(2).toString('hex')}`;
  const anon = server ? anonymous.at(server.baseUrl) : anonymous;
  const created = await anon.post(PATHS.signup, { email, password, first_name, last_name });
  expectStatus(created, 201, `signup of ${email}`);
  await proveEmail(email, server);
  const res = await anon.post(PATHS.auth, { username: email, password });
  expectStatus(res, 200, `login of ${email}`);
  const token = res.json.token as string;
  return { sid: res.json.user.sid, email, password, first_name, last_name, token, api: new Api(token, 'token', server?.baseUrl) };
}

// ----------------------------------------------------------- organizations --

/** Creates an organization with `owner` as its first Admin; returns its detail record. */
export async function createOrganization(owner: TestUser, name = `Org ${unique('o')}`) {
  const res = await owner.api.post(paths.organizationList(owner.sid, 'detail'), { name });
  expectStatus(res, 201, 'creating an organization');
  return res.json as { sid: string; name: string; credits: string; description: string };
}

/** Every record of a list, page by page. */
export async function listAll(api: Api, listPath: (query: Query) => string): Promise<any[]> {
  const results: any[] = [];
  for (let page = 1; page <= 100; page += 1) {
    const body = assertPage(await api.get(listPath({ page, page_size: 100 })));
    results.push(...body.results);
    if (body.next === null) return results;
  }
  throw new Error('more than 100 pages');
}

/** The personnel records of an organization, as `api` sees them (detail shape). */
export function listPersonnel(api: Api, orgSid: string): Promise<any[]> {
  return listAll(api, (query) => paths.personnelList(orgSid, 'detail', query));
}

/** A fresh organization whose Admin (its creator) carries their own personnel record. */
export async function newOrganization(label = 'admin'): Promise<{ admin: TestMember; org: { sid: string; name: string; credits: string } }> {
  const admin = await newUser(label);
  const org = await createOrganization(admin);
  const [record] = await listPersonnel(admin.api, org.sid);
  assert.equal(record?.email, admin.email, 'the creator is the first personnel record');
  return { admin: { ...admin, personnel: record }, org };
}

/** POST /organizations/personnel/list/organization/{org}/detail/ with `body` (one object or an array). */
export function postPersonnel(api: Api, orgSid: string, body: unknown, serializer: Serializer = 'detail'): Promise<Answer> {
  return api.post(paths.personnelList(orgSid, serializer), body);
}

/**
 * Signs up a fresh user and has the Admin add them to the organization (a Member unless
 * `fields` say otherwise). Fields are strings, as the spec types them.
 */
export async function addMember(
  admin: TestUser, org: { sid: string }, fields: Record<string, string> = {}, label = 'member', options: { accept?: boolean } = {},
): Promise<TestMember> {
  const user = await newUser(label);
  const res = await postPersonnel(admin.api, org.sid, {
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    title: 'Research scientist',
    date_start: '2024-01-15',
    is_administrator: 'false',
    is_archived: 'false',
    ...fields,
  });
  expectStatus(res, 201, `adding ${user.email} as personnel`);
  // As the invitee would: accepting the organization lets it mail them (docs/decisions.md, "Consent before mail").
  // (An archived or ended record cannot be accepted.)
  const active = fields.is_archived !== 'true' && !(fields.date_end && fields.date_end < new Date().toISOString().slice(0, 10));
  if (options.accept !== false && active) expectStatus(await user.api.post(`/organizations/personnel/detail/${res.json.sid}/accept/`), 200, `${user.email} accepts`);
  return { ...user, personnel: res.json };
}

/** A personnel record as `api` sees it (asserts 200). */
export async function getPersonnel(api: Api, sid: string): Promise<any> {
  const res = await api.get(paths.personnelDetail(sid));
  assert.equal(res.status, 200, `reading personnel ${sid}: ${describeAnswer(res)}`);
  return res.json;
}
