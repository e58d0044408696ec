// The permission walk (issue 7, point 5): every route of /openapi.json, called by each
// kind of caller, checked against a table that is data: the spec's permission tables
// (Personnel, Workflow, Step, Cell, Version, Notification), the design's roles and
// docs/decisions.md where the spec is silent. A route missing from the table fails the
// walk. Refused writes are followed by a re-read proving nothing changed. Then the
// isolation of organizations: lists, filters, counts, next/previous links, error bodies
// and the live stream of a member of another organization never show organization A.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { BASE_URL } from '../helpers/env.ts';
import { anonymous, Api, describeAnswer, type Answer } from '../helpers/http.ts';
import { assertPage, MESSAGES } from '../helpers/assertions.ts';
import { addMember, login, newUser, postPersonnel, unique, uniqueEmail, type Serializer, type TestMember, type TestUser } from '../helpers/factories.ts';
import { createCell, createRow, foreignRecords, newWorkspace, recordPaths, ROLES, type ForeignRecords, type Role, type Workspace } from '../helpers/records.ts';
import { notificationPaths, openStream, sendNotification, type Stream } from '../helpers/notifications.ts';
import { filePaths, multipart, tus, tusMetadata } from '../helpers/files.ts';

// ------------------------------------------------------------------ the table --

/**
 * What a caller gets: a status (401, 403 and 404 with the design's exact {"detail"} body;
 * 400 with field errors; 2xx with a JSON body), or a status with the exact plain-text body
 * (the spec's 406 messages).
 */
type Outcome = number | [number, string] | { status: number; detail: RegExp };
type Expect = Record<Role, Outcome>;

/** One expectation per caller, in the order of the table's header: ROLES. */
function E(...outcomes: Outcome[]): Expect {
  assert.equal(outcomes.length, ROLES.length, 'one outcome per caller');
  return Object.fromEntries(ROLES.map((role, i) => [role, outcomes[i]])) as Expect;
}

const WRONG_ID: Outcome = [406, MESSAGES.wrongId];
/** The built-in widgets with Labii's sids (the files table's file path and file size). */
const LABII_BUILTIN_WIDGETS = new Set(['JMPS0a40x5eLQV16afk', 'KNQT0a40x5fMRW27bgl']);
/** The thumbnail of a file that is not an image (modules/files/thumbnails.ts), and of one the job has not looked at yet. */
const NO_THUMBNAIL: Outcome = { status: 404, detail: /^This file has no thumbnail: only images have one\.$/ };
const THUMBNAIL_NOT_YET = 'The thumbnail is not made yet (it is made in the background); try again shortly.';
/** POST /accounts/changeemail/ by an account whose email is proved. */
const PROVED: Outcome = { status: 403, detail: /^Your email address is proved: it is your sign-in address and cannot be changed here\.$/ };
/** The instance administrators' routes: none of the callers is one (admin.test.ts walks the one the harness named). */
const NOT_INSTANCE_ADMIN = E(403, 403, 403, 403, 403, 403, 403, 401);
/** An org Admin without a role in the project writing its rows or cells: told why and what to do. */
const NEEDS_ROLE: Outcome = {
  status: 403,
  detail: /^You are not a member of this project\. An organization Admin reads every project but writes its rows and cells only with a project role: add yourself to the project first \(POST \/projects\/member\/list\/project\/\w+\/detail\/ with \{"personnel": "\w+", "permission": "edit"\}\)\.$/,
};

/** The records the walk aims at (organization A is the workspace's; B is the outsider's). */
interface Fixtures {
  ws: Workspace;
  widget: any;
  row: any;
  cell: any;
  version: any;
  workflow: any;
  step: any;
  execution: any;
  notification: any;
  /** A personnel record of A that is none of the callers. */
  spare: any;
  /** The project membership of another spare personnel (Project View). */
  membership: any;
  /** The org Admin's API key. */
  apiKey: any;
  /** A file of A, uploaded by its Admin. */
  file: any;
  /** A row of its own for files, and a file attached to it (uploaded to its file cell by the Project Admin): read by the row's rules. */
  fileRow: any;
  rowFile: any;
  /** Whose credentials POST /accounts/auth/ sends: a user of no organization. */
  loginUser: TestUser;
}

interface Walk<T = any> {
  /** METHOD and the OpenAPI path; `{serializer}` stands for name, list and detail (each is called). */
  route: string;
  /** What this row is about, when a route has several. */
  note?: string;
  /** Names the row for `mirror`. */
  id?: string;
  expect: Expect;
  /** The record aimed at: made once, or (fresh) once per call, so no call changes another's expectation. */
  target?: (f: Fixtures, role: Role) => Promise<T> | T;
  fresh?: boolean;
  path: (f: Fixtures, t: T, role: Role, serializer: Serializer) => string;
  body?: (f: Fixtures, t: T, role: Role) => unknown;
  /** Read by someone who sees it, before and after a refused call: must be equal. */
  state?: (f: Fixtures, t: T, role: Role) => Promise<unknown>;
  /** The caller's client (default: the workspace's); logout gets a fresh session. */
  as?: (f: Fixtures, role: Role) => Promise<Api>;
  /** A GET whose add_permission/change_permission must say what the row `of` answers the same caller (or always `always`). */
  mirror?: { flag: 'add_permission' | 'change_permission'; of?: string; always?: boolean };
  /** Further checks after a success. */
  then?: (f: Fixtures, t: T, role: Role, res: Answer) => Promise<void>;
  /** The answer is the caller's own account (the Alumni's own name is no leak of A). */
  own?: boolean;
  /** A call other than a plain request (the event stream). */
  call?: (api: Api, target: string) => Promise<Answer>;
}

// Paths of organization A (the workspace's).
const orgA = (f: Fixtures) => f.ws.org.sid;
const list = (app: string, model: string) => (f: Fixtures, serializer: Serializer, query?: Record<string, string>, level = 'organization', sid = orgA(f)) =>
  `/${app}/${model}/list/${level}/${sid}/${serializer}/${query ? `?${new URLSearchParams(query)}` : ''}`;
const detail = (app: string, model: string) => (sid: string) => `/${app}/${model}/detail/${sid}/`;
const L = {
  apikey: list('accounts', 'apikey'), organization: list('organizations', 'organization'), personnel: list('organizations', 'personnel'),
  project: list('projects', 'project'), member: list('projects', 'member'), table: list('tables', 'table'), widget: list('widgets', 'widget'),
  column: list('tables', 'column'), row: list('tables', 'row'), cell: list('tables', 'cell'), version: list('tables', 'version'),
  section: list('tables', 'section'), credit: list('organizations', 'credit'), workflow: list('tables', 'workflow'), step: list('tables', 'step'),
  execution: list('tables', 'execution'), notification: list('notifications', 'notification'), file: list('files', 'file'),
  team: list('organizations', 'team'), labiiWorkflow: list('workflows', 'workflow'), labiiMember: list('projects', 'projectmember'),
  filter: list('tables', 'filter'), activity: list('activities', 'activity'), labiiActivity: list('tables', 'activity'),
};
const D = {
  apikey: detail('accounts', 'apikey'), organization: detail('organizations', 'organization'), personnel: detail('organizations', 'personnel'),
  project: detail('projects', 'project'), member: detail('projects', 'member'), table: detail('tables', 'table'), widget: detail('widgets', 'widget'),
  column: detail('tables', 'column'), row: detail('tables', 'row'), cell: detail('tables', 'cell'), version: detail('tables', 'version'),
  section: detail('tables', 'section'), workflow: detail('tables', 'workflow'), step: detail('tables', 'step'), execution: detail('tables', 'execution'),
  notification: detail('notifications', 'notification'), file: detail('files', 'file'),
  team: detail('organizations', 'team'), labiiWorkflow: detail('workflows', 'workflow'), labiiMember: detail('projects', 'projectmember'),
  filter: detail('tables', 'filter'),
};

// The caller's own records (anonymous has none: it is sent the Admin's).
const userOf = (f: Fixtures, role: Role) => (role === 'anonymous' ? f.ws.admin : (f.ws as any)[role] as TestMember);

// Fresh records of A, made by whoever may make them.
const make = {
  personnel: async (f: Fixtures) => created(await postPersonnel(f.ws.admin.api, orgA(f), {
    email: uniqueEmail('spare'), first_name: 'Spare', last_name: unique('p'), title: 'Technician', date_start: '2024-01-01',
  })),
  membership: async (f: Fixtures) => created(await f.ws.admin.api.post(L.member(f, 'detail', undefined, 'project', f.ws.project.sid),
    { personnel: (await make.personnel(f)).sid, permission: 'view' })),
  column: async (f: Fixtures) => created(await f.ws.admin.api.post(L.column(f, 'detail', { table__sid: f.ws.table.sid }),
    { name: `Column ${unique('c')}`, widget: 'builtinWidgetTxt' })),
  row: (f: Fixtures) => createRow(f.ws, { name: `Row ${unique('r')}` }),
  section: async (f: Fixtures) => {
    const row = await make.row(f);
    return { row, ...await created(await f.ws.projectAdmin.api.post(L.section(f, 'detail', { row__sid: row.sid }), { name: `Section ${unique('s')}`, data: 'first' })) };
  },
  /** A row open to the organization (Labii's open_to_organization: every active member reads it). */
  openRow: (f: Fixtures) => createRow(f.ws, { name: `Open row ${unique('r')}`, open_to_organization: true }),
  /** A saved filter of the Project Edit's, shared with nobody. */
  filter: async (f: Fixtures) => created(await f.ws.projectEdit.api.post(L.filter(f, 'detail', { table__sid: f.ws.table.sid }),
    { name: `Filter ${unique('f')}`, query: { is_archived: false } })),
  cell: async (f: Fixtures) => createCell(f.ws.projectAdmin.api, orgA(f), (await make.row(f)).sid, f.ws.columns.text.sid, 'first'),
  version: async (f: Fixtures) => {
    const row = await make.row(f);
    const page = assertPage(await f.ws.admin.api.get(L.version(f, 'name', { row__sid: row.sid })));
    return { row, sid: page.results[0].sid };
  },
  team: async (f: Fixtures) => created(await f.ws.admin.api.post(L.team(f, 'detail'), { name: `Team ${unique('t')}`, members: [f.ws.projectEdit.personnel.sid] })),
  workflow: async (f: Fixtures) => created(await f.ws.admin.api.post(L.workflow(f, 'detail', { table__sid: f.ws.table.sid }), { name: `Workflow ${unique('w')}` })),
  step: async (f: Fixtures) => created(await f.ws.admin.api.post(L.step(f, 'detail'),
    { name: `Step ${unique('s')}`, workflow: (await make.workflow(f)).sid, widget: 'builtinWidgetWai', data: { event: 'go' } })),
  notification: (f: Fixtures) => sendNotification(f.ws.projectAdmin.api, orgA(f), [f.ws.projectEdit.personnel], { name: `Subject ${unique('n')}` }),
  apiKey: async (f: Fixtures) => created(await f.ws.admin.api.post(L.apikey(f, 'detail', undefined, 'user', f.ws.admin.sid), { name: `key ${unique('k')}` })),
  /** A file of A uploaded by its Admin (JSON bytes, so a download reads as a JSON answer). */
  file: async (f: Fixtures) => created(await uploadAs(f.ws.admin.api, filePaths.list(orgA(f)))),
  /** A resumable upload of A begun by its Admin: 10 bytes to come. */
  upload: async (f: Fixtures) => {
    const res = await tus(f.ws.admin.api, 'POST', filePaths.resumable(orgA(f)), { 'upload-length': '10', 'upload-metadata': tusMetadata({ filename: 'walk.json' }) });
    assert.equal(res.status, 201, describeAnswer(res));
    return { location: res.headers.get('location')! };
  },
};

/** POSTs a small JSON file as multipart/form-data. */
function uploadAs(api: Api, target: string): Promise<Answer> {
  const { body, contentType } = multipart([{ name: 'file', filename: `walk ${unique('f')}.json`, content: '{"walked": true}' }]);
  return api.request('POST', target, { rawBody: body, contentType });
}

async function created(res: Answer): Promise<any> {
  assert.ok(res.status === 201, `making a target: ${describeAnswer(res)}`);
  return res.json;
}

/** A list's count as `api` sees it. */
async function countOf(api: Api, path: string): Promise<number> {
  return assertPage(await api.get(path), undefined, `count of ${path}`).count;
}

/** A record as `api` reads it (status and body). */
async function read(api: Api, path: string): Promise<unknown> {
  const res = await api.get(path);
  return { status: res.status, body: res.json };
}

const readableBy = (who: Role, path: (f: Fixtures, t: any, role: Role) => string) =>
  (f: Fixtures, t: any, role: Role) => read(f.ws.api[who], path(f, t, role));
const countBy = (who: Role, path: (f: Fixtures, t: any, role: Role) => string) =>
  (f: Fixtures, t: any, role: Role) => countOf(f.ws.api[who], path(f, t, role));

// The table. Columns, in ROLES order:
//   admin (org Admin, no project role), projectAdmin, projectEdit, projectView (project roles
//   in the workspace's project), member (no project role), alumni (archived, was Project Edit),
//   outsider (Admin of organization B), anonymous (no token).
const TABLE: Walk[] = [
  // --- no token needed
  { route: 'GET /health/', expect: E(200, 200, 200, 200, 200, 200, 200, 200), path: () => '/health/' },
  { route: 'GET /health/live/', expect: E(200, 200, 200, 200, 200, 200, 200, 200), path: () => '/health/live/' },
  { route: 'GET /health/ready/', expect: E(200, 200, 200, 200, 200, 200, 200, 200), path: () => '/health/ready/' },
  {
    route: 'POST /accounts/signup/', expect: E(201, 201, 201, 201, 201, 201, 201, 201), path: () => '/accounts/signup/',
    body: () => ({ email: uniqueEmail('walk'), password: 'correct horse battery', first_name: 'Walk', last_name: 'Er' }),
  },
  {
    route: 'POST /accounts/auth/', expect: E(200, 200, 200, 200, 200, 200, 200, 200), path: () => '/accounts/auth/',
    body: (f) => ({ username: f.loginUser.email, password: f.loginUser.password }),
  },
  {
    route: 'POST /accounts/forgetpassword/', expect: E(200, 200, 200, 200, 200, 200, 200, 200), path: () => '/accounts/forgetpassword/',
    body: () => ({ email: uniqueEmail('nobody') }),
  },
  {
    route: 'POST /accounts/resetpassword/', note: 'an unknown tag', expect: E(...Array<Outcome>(8).fill([406, 'Error: Wrong Tag! - Tag is not valid'])),
    path: () => '/accounts/resetpassword/?tag=not-a-tag', body: () => ({ password: 'correct horse battery' }),
  },
  {
    route: 'POST /accounts/verifyemail/', note: 'an unknown tag', expect: E(400, 400, 400, 400, 400, 400, 400, 400),
    path: () => '/accounts/verifyemail/?tag=not-a-tag',
  },
  {
    route: 'POST /accounts/unlock/', note: 'an unknown tag', expect: E(400, 400, 400, 400, 400, 400, 400, 400),
    path: () => '/accounts/unlock/?tag=not-a-tag',
  },
  {
    route: 'POST /accounts/verifyemail/resend/', note: 'every caller here has proved their email', expect: E(200, 200, 200, 200, 200, 200, 200, 401),
    path: () => '/accounts/verifyemail/resend/',
  },
  // --- the session
  { route: 'GET /accounts/checktoken/', expect: E(200, 200, 200, 200, 200, 200, 200, 401), path: () => '/accounts/checktoken/' },
  ...(['GET', 'POST'] as const).map((method): Walk => ({
    route: `${method} /accounts/logout/`, note: 'a fresh session of the caller', expect: E(200, 200, 200, 200, 200, 200, 200, 401),
    path: () => '/accounts/logout/',
    as: async (f, role) => (role === 'anonymous' ? anonymous : new Api(await login(userOf(f, role)))),
    then: async (f, _t, role) => {
      assert.equal((await f.ws.api[role].get('/accounts/checktoken/')).status, 200, `${role}: the other session goes on`);
    },
  })),
  // --- the account's sessions and password (issue 14): any signed-in account, for itself
  {
    route: 'POST /accounts/logoutall/', note: 'a throwaway account (it ends every session of the account)', expect: E(200, 200, 200, 200, 200, 200, 200, 401),
    path: () => '/accounts/logoutall/',
    as: async (_f, role) => (role === 'anonymous' ? anonymous : new Api((await newUser('walkout')).token)),
  },
  {
    route: 'POST /accounts/changeemail/', note: 'every caller here has proved their email (only an unproven account may)',
    expect: E(PROVED, PROVED, PROVED, PROVED, PROVED, PROVED, PROVED, 401), path: () => '/accounts/changeemail/', body: () => ({ email: uniqueEmail('walk') }),
  },
  {
    route: 'POST /accounts/changepassword/', note: 'a wrong current password', expect: E(400, 400, 400, 400, 400, 400, 400, 401),
    path: () => '/accounts/changepassword/', body: () => ({ current_password: 'not the password', new_password: 'correct horse battery staple' }),
  },
  // --- the browser session (issue 13): the cookie's endpoints, with the token header here
  {
    route: 'POST /accounts/session/', expect: E(200, 200, 200, 200, 200, 200, 200, 200), path: () => '/accounts/session/',
    body: (f) => ({ username: f.loginUser.email, password: f.loginUser.password }),
  },
  { route: 'GET /accounts/session/', expect: E(200, 200, 200, 200, 200, 200, 200, 401), path: () => '/accounts/session/', own: true },
  {
    route: 'DELETE /accounts/session/', note: 'a fresh session of the caller', expect: E(204, 204, 204, 204, 204, 204, 204, 204),
    path: () => '/accounts/session/',
    as: async (f, role) => (role === 'anonymous' ? anonymous : new Api(await login(userOf(f, role)))),
    then: async (f, _t, role) => {
      assert.equal((await f.ws.api[role].get('/accounts/checktoken/')).status, role === 'anonymous' ? 401 : 200, `${role}: the other session goes on`);
    },
  },
  // --- API keys: the owner only (level=user with their own sid)
  {
    route: 'GET /accounts/apikey/list/{level}/{sid}/{serializer}/', note: "the Admin's keys", expect: E(200, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.apikey(f, s, undefined, 'user', f.ws.admin.sid), mirror: { flag: 'add_permission', of: 'apikey.post' },
  },
  {
    route: 'GET /accounts/apikey/list/{level}/{sid}/{serializer}/', note: 'their own keys', expect: E(200, 200, 200, 200, 200, 200, 200, 401),
    path: (f, _t, role, s) => L.apikey(f, s, undefined, 'user', userOf(f, role).sid),
  },
  {
    route: 'POST /accounts/apikey/list/{level}/{sid}/{serializer}/', id: 'apikey.post', note: "a key for the Admin",
    expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.apikey(f, s, undefined, 'user', f.ws.admin.sid), body: () => ({ name: `walk ${unique('k')}` }),
    state: (f) => countOf(f.ws.admin.api, L.apikey(f, 'name', undefined, 'user', f.ws.admin.sid)),
  },
  {
    route: 'GET /accounts/apikey/detail/{sid}/', expect: E(200, 404, 404, 404, 404, 404, 404, 401),
    target: (f) => f.apiKey, path: (_f, t) => D.apikey(t.sid), mirror: { flag: 'change_permission', of: 'apikey.delete' },
  },
  {
    route: 'DELETE /accounts/apikey/detail/{sid}/', id: 'apikey.delete', expect: E(200, 404, 404, 404, 404, 404, 404, 401),
    fresh: true, target: make.apiKey, path: (_f, t) => D.apikey(t.sid), state: readableBy('admin', (_f, t) => D.apikey(t.sid)),
  },
  // --- organizations (level=user)
  {
    route: 'GET /organizations/organization/list/{level}/{sid}/{serializer}/', note: "the Admin's organizations",
    expect: E(200, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.organization(f, s, undefined, 'user', f.ws.admin.sid), mirror: { flag: 'add_permission', of: 'organization.post' },
  },
  {
    route: 'GET /organizations/organization/list/{level}/{sid}/{serializer}/', note: 'their own organizations',
    expect: E(200, 200, 200, 200, 200, 200, 200, 401), path: (f, _t, role, s) => L.organization(f, s, undefined, 'user', userOf(f, role).sid),
    then: async (f, _t, role, res) => {
      const sids = res.json.results.map((o: any) => o.sid);
      assert.equal(sids.includes(orgA(f)), !['alumni', 'outsider'].includes(role), `${role}: whether organization A is listed`);
    },
  },
  {
    route: 'POST /organizations/organization/list/{level}/{sid}/{serializer}/', id: 'organization.post', note: 'for the Admin',
    expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.organization(f, s, undefined, 'user', f.ws.admin.sid), body: () => ({ name: `Org ${unique('o')}` }),
    state: (f) => countOf(f.ws.admin.api, L.organization(f, 'name', undefined, 'user', f.ws.admin.sid)),
  },
  {
    route: 'GET /organizations/organization/detail/{sid}/', expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => D.organization(orgA(f)), mirror: { flag: 'change_permission', of: 'organization.patch' },
  },
  {
    route: 'PATCH /organizations/organization/detail/{sid}/', id: 'organization.patch', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    path: (f) => D.organization(orgA(f)), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (f) => D.organization(orgA(f))),
  },
  // --- personnel (spec: GET Admin, Member; POST Admin; PATCH Admin, Member limited to their own member fields)
  {
    route: 'GET /organizations/personnel/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.personnel(f, s), mirror: { flag: 'add_permission', of: 'personnel.post' },
  },
  {
    route: 'POST /organizations/personnel/list/{level}/{sid}/{serializer}/', id: 'personnel.post', expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.personnel(f, s),
    body: () => ({ email: uniqueEmail('walk'), first_name: 'New', last_name: 'Member', title: 'Technician', date_start: '2024-01-01' }),
    state: countBy('admin', (f) => L.personnel(f, 'name', { page_size: '1' })),
  },
  {
    route: 'GET /organizations/personnel/detail/{sid}/', note: "someone else's record", expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => D.personnel(f.spare.sid), mirror: { flag: 'change_permission', of: 'personnel.patch.other' },
  },
  {
    route: 'GET /organizations/personnel/detail/{sid}/', note: 'their own record (the outsider: theirs in B)',
    expect: E(200, 200, 200, 200, 200, 403, 200, 401),
    path: (f, _t, role) => D.personnel(userOf(f, role).personnel.sid), mirror: { flag: 'change_permission', of: 'personnel.patch.own' },
  },
  {
    route: 'PATCH /organizations/personnel/detail/{sid}/', id: 'personnel.patch.other', note: "someone else's record, an Admin field",
    expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.personnel, path: (_f, t) => D.personnel(t.sid), body: () => ({ title: 'Changed' }),
    state: readableBy('admin', (_f, t) => D.personnel(t.sid)),
  },
  {
    route: 'PATCH /organizations/personnel/detail/{sid}/', note: "someone else's record, a member field",
    expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.personnel, path: (_f, t) => D.personnel(t.sid), body: () => ({ first_name: 'Changed' }),
    state: readableBy('admin', (_f, t) => D.personnel(t.sid)),
  },
  {
    route: 'PATCH /organizations/personnel/detail/{sid}/', id: 'personnel.patch.own', note: 'their own record, a member field',
    expect: E(200, 200, 200, 200, 200, 403, 200, 401),
    path: (f, _t, role) => D.personnel(userOf(f, role).personnel.sid), body: (_f, _t, role) => ({ dashboard: [{ link: '/x/', note: role }] }),
    state: (f, _t, role) => read(role === 'outsider' ? f.ws.outsider.api : f.ws.admin.api, D.personnel(userOf(f, role).personnel.sid)),
  },
  {
    route: 'PATCH /organizations/personnel/detail/{sid}/', note: 'their own record, an Admin field',
    expect: E(200, 403, 403, 403, 403, 403, 200, 401),
    path: (f, _t, role) => D.personnel(userOf(f, role).personnel.sid), body: (_f, _t, role) => ({ title: `Title of ${role}` }),
    state: (f, _t, role) => read(role === 'outsider' ? f.ws.outsider.api : f.ws.admin.api, D.personnel(userOf(f, role).personnel.sid)),
  },
  // --- consent before mail (issue 21): one's own record only; someone else's is not found
  {
    route: 'POST /organizations/personnel/detail/{sid}/accept/', note: "someone else's record", expect: E(404, 404, 404, 404, 404, 404, 404, 401),
    path: (f) => `${D.personnel(f.spare.sid)}accept/`,
  },
  {
    route: 'POST /organizations/personnel/detail/{sid}/accept/', note: 'their own record (the alumnus: archived or ended; the outsider: theirs in B)',
    expect: E(200, 200, 200, 200, 200, 400, 200, 401),
    path: (f, _t, role) => `${D.personnel(userOf(f, role).personnel.sid)}accept/`,
  },
  {
    route: 'POST /organizations/personnel/detail/{sid}/leave/', note: "someone else's record (leaving one's own: mail-consent.test.ts)",
    expect: E(404, 404, 404, 404, 404, 404, 404, 401), path: (f) => `${D.personnel(f.spare.sid)}leave/`,
  },
  { route: 'GET /accounts/invitations/', expect: E(200, 200, 200, 200, 200, 200, 200, 401), path: () => '/accounts/invitations/' },
  {
    route: 'GET /accounts/invitation/', note: 'an unknown tag', expect: E(400, 400, 400, 400, 400, 400, 400, 400),
    path: () => '/accounts/invitation/?tag=not-a-tag',
  },
  // --- projects and their members (design; decisions: Projects, Project members)
  {
    route: 'GET /projects/project/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.project(f, s), mirror: { flag: 'add_permission', of: 'project.post' },
    then: async (f, _t, role, res) => {
      const listed = res.json.results.some((p: any) => p.sid === f.ws.project.sid);
      assert.equal(listed, role !== 'member', `${role}: whether the project is listed`);
    },
  },
  {
    route: 'POST /projects/project/list/{level}/{sid}/{serializer}/', id: 'project.post', expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.project(f, s), body: () => ({ name: `Project ${unique('p')}` }),
    state: countBy('admin', (f) => L.project(f, 'name', { page_size: '1' })),
  },
  {
    route: 'GET /projects/project/detail/{sid}/', expect: E(200, 200, 200, 200, 403, 403, 404, 401),
    path: (f) => D.project(f.ws.project.sid), mirror: { flag: 'change_permission', of: 'project.patch' },
  },
  {
    route: 'GET /projects/project/detail/{sid}/eln/', note: 'the .eln export (issue 26): who may read the project\'s rows',
    expect: E(200, 200, 200, 200, 403, 403, 403, 401), path: (f) => `${D.project(f.ws.project.sid)}eln/`,
  },
  {
    route: 'POST /projects/project/detail/{sid}/eln/', note: 'the .eln import: who may create rows; a file that is no zip is 400 for them',
    expect: E(NEEDS_ROLE, 400, 400, 403, 403, 403, 403, 401), path: (f) => `${D.project(f.ws.project.sid)}eln/?table__sid=${f.ws.table.sid}`,
    call: (api, target) => api.request('POST', target, { rawBody: 'not a zip', contentType: 'application/zip' }),
  },
  {
    route: 'PATCH /projects/project/detail/{sid}/', id: 'project.patch', expect: E(200, 200, 403, 403, 403, 403, 404, 401),
    path: (f) => D.project(f.ws.project.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (f) => D.project(f.ws.project.sid)),
  },
  {
    route: 'GET /projects/member/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.member(f, s, undefined, 'project', f.ws.project.sid), mirror: { flag: 'add_permission', of: 'member.post' },
  },
  {
    route: 'POST /projects/member/list/{level}/{sid}/{serializer}/', id: 'member.post', expect: E(201, 201, 403, 403, 403, 403, 403, 401),
    fresh: true, target: make.personnel,
    path: (f, _t, _r, s) => L.member(f, s, undefined, 'project', f.ws.project.sid), body: (_f, t) => ({ personnel: t.sid, permission: 'view' }),
    state: countBy('admin', (f) => L.member(f, 'name', { page_size: '1' }, 'project', f.ws.project.sid)),
  },
  {
    route: 'GET /projects/member/detail/{sid}/', expect: E(200, 200, 200, 200, 403, 403, 404, 401),
    path: (f) => D.member(f.membership.sid), mirror: { flag: 'change_permission', of: 'member.patch' },
  },
  {
    route: 'PATCH /projects/member/detail/{sid}/', id: 'member.patch', expect: E(200, 200, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.membership, path: (_f, t) => D.member(t.sid), body: () => ({ permission: 'edit' }),
    state: readableBy('admin', (_f, t) => D.member(t.sid)),
  },
  {
    route: 'DELETE /projects/member/detail/{sid}/', expect: E(200, 200, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.membership, path: (_f, t) => D.member(t.sid), state: readableBy('admin', (_f, t) => D.member(t.sid)),
  },
  // Labii's path of a project's members: level=organization with ?project__sid= (the SDK's default level).
  {
    route: 'GET /projects/member/list/{level}/{sid}/{serializer}/', note: "Labii's path (level=organization, ?project__sid=)",
    expect: E(200, 200, 200, 200, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.member(f, s, { project__sid: f.ws.project.sid }),
  },
  {
    route: 'POST /projects/member/list/{level}/{sid}/{serializer}/', note: "Labii's path and body ({member: [...], permission: \"View\"})",
    expect: E(201, 201, 403, 403, 403, 403, 403, 401), fresh: true, target: make.personnel,
    path: (f, _t, _r, s) => L.member(f, s, { project__sid: f.ws.project.sid }), body: (_f, t) => ({ member: [t.sid], permission: 'View' }),
    state: countBy('admin', (f) => L.member(f, 'name', { page_size: '1' }, 'project', f.ws.project.sid)),
  },
  // The same members at the path of Labii's v3 docs (/projects/projectmember/).
  {
    route: 'GET /projects/projectmember/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.labiiMember(f, s, { project__sid: f.ws.project.sid }),
  },
  {
    route: 'POST /projects/projectmember/list/{level}/{sid}/{serializer}/', expect: E(201, 201, 403, 403, 403, 403, 403, 401),
    fresh: true, target: make.personnel,
    path: (f, _t, _r, s) => L.labiiMember(f, s, undefined, 'project', f.ws.project.sid), body: (_f, t) => ({ member: [{ sid: t.sid }], permission: 'Admin' }),
    state: countBy('admin', (f) => L.member(f, 'name', { page_size: '1' }, 'project', f.ws.project.sid)),
  },
  {
    route: 'GET /projects/projectmember/detail/{sid}/', expect: E(200, 200, 200, 200, 403, 403, 404, 401),
    path: (f) => D.labiiMember(f.membership.sid),
  },
  {
    route: 'PATCH /projects/projectmember/detail/{sid}/', expect: E(200, 200, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.membership, path: (_f, t) => D.labiiMember(t.sid), body: () => ({ permission: 'Edit' }),
    state: readableBy('admin', (_f, t) => D.member(t.sid)),
  },
  {
    route: 'DELETE /projects/projectmember/detail/{sid}/', expect: E(200, 200, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.membership, path: (_f, t) => D.labiiMember(t.sid), state: readableBy('admin', (_f, t) => D.member(t.sid)),
  },
  // --- teams (Labii's /organizations/team/): every member reads, Admins define
  {
    route: 'GET /organizations/team/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.team(f, s), mirror: { flag: 'add_permission', of: 'team.post' },
  },
  {
    route: 'POST /organizations/team/list/{level}/{sid}/{serializer}/', id: 'team.post', expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.team(f, s), body: () => ({ name: `Team ${unique('t')}` }),
    state: countBy('admin', (f) => L.team(f, 'name', { page_size: '1' })),
  },
  {
    route: 'GET /organizations/team/detail/{sid}/', expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    target: make.team, path: (_f, t) => D.team(t.sid), mirror: { flag: 'change_permission', of: 'team.patch' },
  },
  {
    route: 'PATCH /organizations/team/detail/{sid}/', id: 'team.patch', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.team, path: (_f, t) => D.team(t.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (_f, t) => D.team(t.sid)),
  },
  {
    route: 'DELETE /organizations/team/detail/{sid}/', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.team, path: (_f, t) => D.team(t.sid), state: readableBy('admin', (_f, t) => D.team(t.sid)),
  },
  // --- tables, widgets, columns (decisions: every member reads, Admins define)
  {
    route: 'GET /tables/table/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.table(f, s), mirror: { flag: 'add_permission', of: 'table.post' },
  },
  {
    route: 'POST /tables/table/list/{level}/{sid}/{serializer}/', id: 'table.post', expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.table(f, s), body: () => ({ name: `Table ${unique('t')}` }),
    state: countBy('admin', (f) => L.table(f, 'name', { page_size: '1' })),
  },
  {
    route: 'GET /tables/table/detail/{sid}/', expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => D.table(f.ws.table.sid), mirror: { flag: 'change_permission', of: 'table.patch' },
  },
  {
    route: 'PATCH /tables/table/detail/{sid}/', id: 'table.patch', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    path: (f) => D.table(f.ws.table.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (f) => D.table(f.ws.table.sid)),
  },
  {
    route: 'GET /widgets/widget/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.widget(f, s), mirror: { flag: 'add_permission', of: 'widget.post' },
  },
  {
    route: 'POST /widgets/widget/list/{level}/{sid}/{serializer}/', id: 'widget.post', expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.widget(f, s), body: () => ({ name: `Widget ${unique('w')}`, price: '0.00' }),
    state: countBy('admin', (f) => L.widget(f, 'name', { page_size: '1' })),
  },
  {
    route: 'GET /widgets/widget/detail/{sid}/', note: "the organization's widget", expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => D.widget(f.widget.sid), mirror: { flag: 'change_permission', of: 'widget.patch' },
  },
  {
    route: 'GET /widgets/widget/detail/{sid}/', note: 'a built-in widget', expect: E(200, 200, 200, 200, 200, 200, 200, 401),
    path: () => D.widget('builtinWidgetTxt'), mirror: { flag: 'change_permission', of: 'widget.patch.builtin' },
  },
  {
    route: 'PATCH /widgets/widget/detail/{sid}/', id: 'widget.patch', note: "the organization's widget", expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    path: (f) => D.widget(f.widget.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (f) => D.widget(f.widget.sid)),
  },
  {
    route: 'PATCH /widgets/widget/detail/{sid}/', id: 'widget.patch.builtin', note: 'a built-in widget', expect: E(403, 403, 403, 403, 403, 403, 403, 401),
    path: () => D.widget('builtinWidgetTxt'), body: () => ({ description: 'changed' }),
    state: readableBy('admin', () => D.widget('builtinWidgetTxt')),
  },
  {
    route: 'GET /tables/column/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.column(f, s, { table__sid: f.ws.table.sid }), mirror: { flag: 'add_permission', of: 'column.post' },
  },
  {
    route: 'POST /tables/column/list/{level}/{sid}/{serializer}/', id: 'column.post', expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.column(f, s, { table__sid: f.ws.table.sid }), body: () => ({ name: `Column ${unique('c')}`, widget: 'builtinWidgetTxt' }),
    state: countBy('admin', (f) => L.column(f, 'name', { table__sid: f.ws.table.sid, page_size: '1' })),
  },
  {
    route: 'GET /tables/column/detail/{sid}/', expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => D.column(f.ws.columns.text.sid), mirror: { flag: 'change_permission', of: 'column.patch' },
  },
  {
    route: 'PATCH /tables/column/detail/{sid}/', id: 'column.patch', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.column, path: (_f, t) => D.column(t.sid), body: () => ({ name: `Renamed ${unique('c')}` }),
    state: readableBy('admin', (_f, t) => D.column(t.sid)),
  },
  // --- rows (design; decisions: the org Admin reads everything, writes only with a project role)
  {
    route: 'GET /tables/row/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.row(f, s, { project__sid: f.ws.project.sid }), mirror: { flag: 'add_permission', of: 'row.post' },
    then: async (f, _t, role, res) => {
      assert.equal(res.json.results.some((r: any) => r.sid === f.row.sid), role !== 'member', `${role}: whether the row is listed`);
    },
  },
  {
    route: 'GET /tables/row/list/table/{sid}/grid/', note: 'the grid (issue 13): the row list\'s rules', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f) => `/tables/row/list/table/${f.ws.table.sid}/grid/?project__sid=${f.ws.project.sid}`, mirror: { flag: 'add_permission', of: 'row.post' },
    then: async (f, _t, role, res) => {
      assert.equal(res.json.results.some((r: any) => r.sid === f.row.sid), role !== 'member', `${role}: whether the row is listed`);
    },
  },
  {
    route: 'GET /tables/row/export/table/{sid}/', note: 'the export (issue 26): the grid\'s rules', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f) => `/tables/row/export/table/${f.ws.table.sid}/?project__sid=${f.ws.project.sid}`,
    then: async (f, _t, role, res) => {
      assert.equal(res.text.includes(f.row.sid), role !== 'member', `${role}: whether the row is exported`);
    },
  },
  {
    route: 'POST /tables/row/import/table/{sid}/', note: 'the import (issue 26): who may create rows in the project; a dry run',
    expect: E(NEEDS_ROLE, 200, 200, 403, 403, 403, 403, 401),
    path: (f) => `/tables/row/import/table/${f.ws.table.sid}/?project__sid=${f.ws.project.sid}&dry_run=true`,
    call: (api, target) => api.request('POST', target, { rawBody: 'name\nimported\n', contentType: 'text/csv' }),
    then: async (_f, _t, _r, res) => assert.deepEqual([res.json.dry_run, res.json.created, res.json.problem_count], [true, 1, 0]),
  },
  {
    route: 'GET /tables/row/import/progress/', note: 'the caller\'s own imports only: an unknown key is 404 for everyone',
    expect: E(404, 404, 404, 404, 404, 404, 404, 401), path: () => '/tables/row/import/progress/?key=none',
  },
  {
    route: 'POST /tables/row/list/{level}/{sid}/{serializer}/', id: 'row.post', expect: E(NEEDS_ROLE, 201, 201, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.row(f, s, { table__sid: f.ws.table.sid, project__sid: f.ws.project.sid }), body: () => ({ name: `Row ${unique('r')}` }),
    state: countBy('admin', (f) => L.row(f, 'name', { project__sid: f.ws.project.sid, page_size: '1' })),
  },
  {
    route: 'GET /tables/row/detail/{sid}/', expect: E(200, 200, 200, 200, 404, 403, 404, 401),
    path: (f) => D.row(f.row.sid), mirror: { flag: 'change_permission', of: 'row.patch' },
  },
  {
    route: 'GET /tables/row/detail/{sid}/verify/', expect: E(200, 200, 200, 200, 404, 403, 404, 401),
    path: (f) => `${D.row(f.row.sid)}verify/`,
  },
  {
    route: 'PATCH /tables/row/detail/{sid}/', id: 'row.patch', note: 'name and description', expect: E(NEEDS_ROLE, 200, 200, 403, 404, 403, 404, 401),
    fresh: true, target: make.row, path: (_f, t) => D.row(t.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (_f, t) => D.row(t.sid)),
  },
  {
    route: 'PATCH /tables/row/detail/{sid}/', note: 'is_locked', expect: E(403, 200, 403, 403, 404, 403, 404, 401),
    fresh: true, target: make.row, path: (_f, t) => D.row(t.sid), body: () => ({ is_locked: true }),
    state: readableBy('admin', (_f, t) => D.row(t.sid)),
  },
  // --- cells (spec: GET Admin and project roles; POST, PATCH Project Admin and Edit)
  {
    route: 'GET /tables/cell/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.cell(f, s, { row__sid: f.row.sid }), mirror: { flag: 'add_permission', of: 'cell.post' },
    then: async (_f, _t, role, res) => assert.equal(res.json.count, role === 'member' ? 0 : 1, `${role}: the row's cells counted`),
  },
  {
    route: 'POST /tables/cell/list/{level}/{sid}/{serializer}/', id: 'cell.post', expect: E(NEEDS_ROLE, 201, 201, 403, 403, 403, 403, 401),
    fresh: true, target: make.row,
    path: (f, t, _r, s) => L.cell(f, s, { row__sid: t.sid }), body: (f) => ({ column: f.ws.columns.text.sid, data: 'walked' }),
    state: readableBy('admin', (_f, t) => D.row(t.sid)),
  },
  {
    route: 'GET /tables/cell/detail/{sid}/', note: "issue 22: its row's rules (404 for who cannot read the row)", expect: E(200, 200, 200, 200, 404, 403, 404, 401),
    path: (f) => D.cell(f.cell.sid), mirror: { flag: 'change_permission', of: 'cell.patch' },
  },
  {
    route: 'PATCH /tables/cell/detail/{sid}/', id: 'cell.patch', note: 'the spec\'s 406 "Wrong id" for a cell the caller cannot find',
    expect: E(NEEDS_ROLE, 200, 200, 403, 403, 403, WRONG_ID, 401),
    fresh: true, target: make.cell, path: (_f, t) => D.cell(t.sid), body: (_f, _t, role) => ({ data: `by ${role}` }),
    state: readableBy('admin', (_f, t) => D.row(t.row.sid)),
  },
  // --- sections (Labii: GET Admin and project roles; POST, PATCH Project Admin and Edit; a row in several projects: any of them)
  {
    route: 'GET /tables/section/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    target: make.section, path: (f, t, _r, s) => L.section(f, s, { row__sid: t.row.sid }), mirror: { flag: 'add_permission', of: 'section.post' },
    then: async (_f, _t, role, res) => assert.equal(res.json.count, role === 'member' ? 0 : 1, `${role}: the row's sections counted`),
  },
  {
    route: 'POST /tables/section/list/{level}/{sid}/{serializer}/', id: 'section.post', expect: E(NEEDS_ROLE, 201, 201, 403, 403, 403, 403, 401),
    fresh: true, target: make.row,
    path: (f, t, _r, s) => L.section(f, s, { row__sid: t.sid }), body: (_f, _t, role) => ({ name: `Section by ${role}`, data: { text: role } }),
    state: readableBy('admin', (_f, t) => D.row(t.sid)),
  },
  {
    route: 'GET /tables/section/detail/{sid}/', expect: E(200, 200, 200, 200, 404, 403, 404, 401),
    target: make.section, path: (_f, t) => D.section(t.sid), mirror: { flag: 'change_permission', of: 'section.patch' },
  },
  {
    route: 'PATCH /tables/section/detail/{sid}/', id: 'section.patch', expect: E(NEEDS_ROLE, 200, 200, 403, 404, 403, 404, 401),
    fresh: true, target: make.section, path: (_f, t) => D.section(t.sid), body: (_f, _t, role) => ({ data: `by ${role}` }),
    state: readableBy('admin', (_f, t) => D.row(t.row.sid)),
  },
  {
    route: 'DELETE /tables/section/detail/{sid}/', note: "Labii: Admin; here the row's Project Admin, a version of the row",
    expect: E(NEEDS_ROLE, 200, 403, 403, 404, 403, 404, 401),
    fresh: true, target: make.section, path: (_f, t) => D.section(t.sid), state: readableBy('admin', (_f, t) => D.section(t.sid)),
  },
  // --- open_to_organization (Labii; rules.ts, openToOrganization): every active member reads the row, as Project View
  {
    route: 'GET /tables/row/detail/{sid}/', note: 'a row open to the organization', expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    target: make.openRow, path: (_f, t) => D.row(t.sid),
    then: async (_f, _t, role, res) => assert.equal(res.json.change_permission, role === 'projectAdmin' || role === 'projectEdit', `${role}: change_permission`),
  },
  {
    route: 'PATCH /tables/row/detail/{sid}/', note: 'a row open to the organization: read, not written', expect: E(NEEDS_ROLE, 200, 200, 403, 403, 403, 404, 401),
    fresh: true, target: make.openRow, path: (_f, t) => D.row(t.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (_f, t) => D.row(t.sid)),
  },
  // --- saved filters (Labii's Filter): every member saves them; its owner, those it is shared with and Admins read one
  {
    route: 'GET /tables/filter/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    target: make.filter, path: (f, _t, _r, s) => L.filter(f, s, { table__sid: f.ws.table.sid }), mirror: { flag: 'add_permission', of: 'filter.post' },
    then: async (_f, t, role, res) => assert.equal(res.json.results.some((x: any) => x.sid === t.sid), role === 'admin' || role === 'projectEdit', `${role}: whether the filter is listed`),
  },
  {
    route: 'POST /tables/filter/list/{level}/{sid}/{serializer}/', id: 'filter.post', expect: E(201, 201, 201, 201, 201, 403, 403, 401),
    path: (f, _t, _r, s) => L.filter(f, s, { table__sid: f.ws.table.sid }), body: (_f, _t, role) => ({ name: `Filter by ${role}`, query: 'search=x' }),
  },
  {
    route: 'GET /tables/filter/detail/{sid}/', note: "the Project Edit's, shared with nobody", expect: E(200, 404, 200, 404, 404, 403, 404, 401),
    target: make.filter, path: (_f, t) => D.filter(t.sid), mirror: { flag: 'change_permission', of: 'filter.patch' },
  },
  {
    route: 'PATCH /tables/filter/detail/{sid}/', id: 'filter.patch', expect: E(200, 404, 200, 404, 404, 403, 404, 401),
    fresh: true, target: make.filter, path: (_f, t) => D.filter(t.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (_f, t) => D.filter(t.sid)),
  },
  {
    route: 'DELETE /tables/filter/detail/{sid}/', expect: E(200, 404, 200, 404, 404, 403, 404, 401),
    fresh: true, target: make.filter, path: (_f, t) => D.filter(t.sid), state: readableBy('admin', (_f, t) => D.filter(t.sid)),
  },
  // --- the activity log (Labii's Activity): Admins
  {
    route: 'GET /activities/activity/list/{level}/{sid}/{serializer}/', expect: E(200, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.activity(f, s), mirror: { flag: 'add_permission', always: false },
    then: async (_f, _t, _r, res) => assert.ok(res.json.count > 0, 'the workspace\'s writes are logged'),
  },
  {
    route: 'GET /tables/activity/list/{level}/{sid}/{serializer}/', note: "labii-sdk 1.13.14's path", expect: E(200, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.labiiActivity(f, s), mirror: { flag: 'add_permission', always: false },
  },
  {
    route: 'GET /activities/activity/export/organization/{sid}/', expect: E(200, 403, 403, 403, 403, 403, 403, 401),
    path: (f) => `/activities/activity/export/organization/${orgA(f)}/?format=csv&model=row`,
  },
  // --- versions (spec: GET Admin and project roles; PATCH Project Admin and Edit)
  {
    route: 'GET /tables/version/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.version(f, s, { row__sid: f.row.sid }), mirror: { flag: 'add_permission', always: false },
    then: async (_f, _t, role, res) => assert.equal(res.json.count === 0, role === 'member', `${role}: the row's versions counted`),
  },
  {
    route: 'GET /tables/version/detail/{sid}/', expect: E(200, 200, 200, 200, 404, 403, 404, 401),
    path: (f) => D.version(f.version.sid), mirror: { flag: 'change_permission', of: 'version.patch' },
  },
  {
    route: 'PATCH /tables/version/detail/{sid}/', id: 'version.patch', expect: E(403, 200, 200, 403, 404, 403, 404, 401),
    fresh: true, target: make.version, path: (_f, t) => D.version(t.sid), body: (_f, _t, role) => ({ commit: `by ${role}` }),
    state: readableBy('admin', (f, t) => L.version(f, 'list', { row__sid: t.row.sid })),
  },
  // --- the credit ledger (decisions: Admins)
  {
    route: 'GET /organizations/credit/list/{level}/{sid}/{serializer}/', expect: E(200, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.credit(f, s), mirror: { flag: 'add_permission', always: false },
  },
  // --- the instance's administrators (docs/decisions.md): nobody here is one, so everyone else gets 403
  ...(['organization', 'account'] as const).map((model): Walk => ({
    route: `GET /admin/${model}/list/{level}/{sid}/{serializer}/`, note: 'their own user sid', expect: NOT_INSTANCE_ADMIN,
    path: (f, _t, role, s) => `/admin/${model}/list/user/${userOf(f, role).sid}/${s}/`,
  })),
  {
    route: 'GET /admin/credit/list/{level}/{sid}/{serializer}/', note: "organization A's ledger", expect: NOT_INSTANCE_ADMIN,
    path: (f, _t, _r, s) => `/admin/credit/list/organization/${orgA(f)}/${s}/`,
  },
  {
    route: 'POST /admin/credit/list/{level}/{sid}/{serializer}/', note: 'credits for organization A', expect: NOT_INSTANCE_ADMIN,
    path: (f, _t, _r, s) => `/admin/credit/list/organization/${orgA(f)}/${s}/`, body: () => ({ amount: '50.00' }),
    state: readableBy('admin', (f) => D.organization(orgA(f))),
  },
  {
    route: 'GET /admin/account/detail/{sid}/', note: 'their own account', expect: NOT_INSTANCE_ADMIN,
    path: (f, _t, role) => `/admin/account/detail/${userOf(f, role).sid}/`,
  },
  {
    route: 'PATCH /admin/account/detail/{sid}/', note: "disabling the login user's account", expect: NOT_INSTANCE_ADMIN,
    path: (f) => `/admin/account/detail/${f.loginUser.sid}/`, body: () => ({ is_active: false }),
    state: async (f) => (await f.loginUser.api.get('/accounts/checktoken/')).status,
  },
  {
    route: 'POST /admin/account/detail/{sid}/resendproof/', expect: NOT_INSTANCE_ADMIN,
    path: (f) => `/admin/account/detail/${f.loginUser.sid}/resendproof/`,
  },
  { route: 'GET /admin/settings/', expect: NOT_INSTANCE_ADMIN, path: () => '/admin/settings/' },
  { route: 'PATCH /admin/settings/', expect: NOT_INSTANCE_ADMIN, path: () => '/admin/settings/', body: () => ({ signup_enabled: false }) },
  { route: 'GET /admin/outbox/', expect: NOT_INSTANCE_ADMIN, path: () => '/admin/outbox/' },
  // --- workflows and steps (spec: GET Admin, Member; POST, PATCH, DELETE Admin)
  {
    route: 'GET /tables/workflow/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.workflow(f, s), mirror: { flag: 'add_permission', of: 'workflow.post' },
  },
  {
    route: 'POST /tables/workflow/list/{level}/{sid}/{serializer}/', id: 'workflow.post', expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.workflow(f, s, { table__sid: f.ws.table.sid }), body: () => ({ name: `Workflow ${unique('w')}` }),
    state: countBy('admin', (f) => L.workflow(f, 'name', { page_size: '1' })),
  },
  {
    route: 'GET /tables/workflow/detail/{sid}/', expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => D.workflow(f.workflow.sid), mirror: { flag: 'change_permission', of: 'workflow.patch' },
  },
  {
    route: 'PATCH /tables/workflow/detail/{sid}/', id: 'workflow.patch', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.workflow, path: (_f, t) => D.workflow(t.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (_f, t) => D.workflow(t.sid)),
  },
  {
    route: 'PATCH /tables/workflow/detail/{sid}/', note: 'triggered for a row (?trigger__sid=)', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.workflow, path: (f, t) => `${D.workflow(t.sid)}?trigger__sid=${f.row.sid}`, body: () => ({}),
    state: countBy('admin', (f, t) => L.execution(f, 'name', { workflow__sid: t.sid })),
    then: async (_f, _t, _r, res) => assert.equal(typeof res.json.execution?.sid, 'string', 'the answer carries the execution'),
  },
  {
    route: 'DELETE /tables/workflow/detail/{sid}/', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.workflow, path: (_f, t) => D.workflow(t.sid), state: readableBy('admin', (_f, t) => D.workflow(t.sid)),
  },
  // The same workflows at labii-sdk 1.13.14's path.
  {
    route: 'GET /workflows/workflow/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.labiiWorkflow(f, s), mirror: { flag: 'add_permission', of: 'workflow.post' },
  },
  {
    route: 'POST /workflows/workflow/list/{level}/{sid}/{serializer}/', expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    path: (f, _t, _r, s) => L.labiiWorkflow(f, s, { table__sid: f.ws.table.sid }), body: () => ({ name: `Workflow ${unique('w')}` }),
    state: countBy('admin', (f) => L.workflow(f, 'name', { page_size: '1' })),
  },
  {
    route: 'GET /workflows/workflow/detail/{sid}/', expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => D.labiiWorkflow(f.workflow.sid), mirror: { flag: 'change_permission', of: 'workflow.patch' },
  },
  {
    route: 'PATCH /workflows/workflow/detail/{sid}/', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.workflow, path: (_f, t) => D.labiiWorkflow(t.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (_f, t) => D.workflow(t.sid)),
  },
  {
    route: 'DELETE /workflows/workflow/detail/{sid}/', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.workflow, path: (_f, t) => D.labiiWorkflow(t.sid), state: readableBy('admin', (_f, t) => D.workflow(t.sid)),
  },
  {
    route: 'GET /tables/step/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.step(f, s, { workflow__sid: f.workflow.sid }), mirror: { flag: 'add_permission', of: 'step.post' },
  },
  {
    route: 'POST /tables/step/list/{level}/{sid}/{serializer}/', id: 'step.post', expect: E(201, 403, 403, 403, 403, 403, 403, 401),
    fresh: true, target: make.workflow,
    path: (f, _t, _r, s) => L.step(f, s, { widget__sid: 'builtinWidgetWai' }),
    body: (_f, t) => ({ name: `Step ${unique('s')}`, workflow: t.sid, data: { event: 'go' } }),
    state: countBy('admin', (f, t) => L.step(f, 'name', { workflow__sid: t.sid })),
  },
  {
    route: 'GET /tables/step/detail/{sid}/', expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => D.step(f.step.sid), mirror: { flag: 'change_permission', of: 'step.patch' },
  },
  {
    route: 'PATCH /tables/step/detail/{sid}/', id: 'step.patch', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.step, path: (_f, t) => D.step(t.sid), body: (_f, _t, role) => ({ description: `changed by ${role}` }),
    state: readableBy('admin', (_f, t) => D.step(t.sid)),
  },
  {
    route: 'DELETE /tables/step/detail/{sid}/', expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.step, path: (_f, t) => D.step(t.sid), state: readableBy('admin', (_f, t) => D.step(t.sid)),
  },
  // --- executions (decisions: read like their rows; a detail the caller cannot read is 404)
  {
    route: 'GET /tables/execution/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.execution(f, s, { workflow__sid: f.workflow.sid }), mirror: { flag: 'add_permission', always: false },
    then: async (_f, _t, role, res) => assert.equal(res.json.count, role === 'member' ? 0 : 1, `${role}: the workflow's executions counted`),
  },
  {
    route: 'GET /tables/execution/detail/{sid}/', expect: E(200, 200, 200, 200, 404, 403, 404, 401),
    path: (f) => D.execution(f.execution.sid),
  },
  // --- notifications (spec: "User"; docs/notifications.md: the recipient's copy, read by its sender too)
  {
    route: 'GET /notifications/notification/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.notification(f, s), mirror: { flag: 'add_permission', of: 'notification.post' },
    then: async (f, _t, role, res) => {
      const listed = res.json.results.some((n: any) => n.sid === f.notification.sid);
      assert.equal(listed, role === 'projectEdit', `${role}: only the recipient lists the notification`);
    },
  },
  {
    route: 'POST /notifications/notification/list/{level}/{sid}/{serializer}/', id: 'notification.post',
    expect: E(201, 201, 201, 201, 201, 403, 403, 401),
    path: (f, _t, _r, s) => L.notification(f, s),
    body: (f) => ({ to: [{ sid: f.ws.projectEdit.personnel.sid, name: f.ws.projectEdit.personnel.name }], name: `Walk ${unique('n')}`, body: 'walked' }),
    state: countBy('projectEdit', (f) => L.notification(f, 'name', { page_size: '1' })),
  },
  {
    route: 'GET /notifications/notification/detail/{sid}/', note: 'sent by the Project Admin to the Project Edit',
    expect: E(404, 200, 200, 404, 404, 404, 404, 401),
    path: (f) => D.notification(f.notification.sid), mirror: { flag: 'change_permission', of: 'notification.patch' },
  },
  {
    route: 'PATCH /notifications/notification/detail/{sid}/', id: 'notification.patch', expect: E(404, 403, 200, 404, 404, 404, 404, 401),
    fresh: true, target: make.notification, path: (_f, t) => D.notification(t.sid), body: () => ({ is_read: true }),
    state: readableBy('projectAdmin', (_f, t) => D.notification(t.sid)),
  },
  {
    route: 'DELETE /notifications/notification/detail/{sid}/', expect: E(404, 403, 200, 404, 404, 404, 404, 401),
    fresh: true, target: make.notification, path: (_f, t) => D.notification(t.sid),
    state: async (f, t) => (await inboxSids(f.ws.projectEdit.api, orgA(f))).includes(t.sid),
  },
  {
    route: 'GET /notifications/notification/stream/', note: 'every organization of the caller', expect: E(200, 200, 200, 200, 200, 200, 200, 401),
    path: () => notificationPaths.stream(), call: streamAnswer,
  },
  {
    route: 'GET /notifications/notification/stream/', note: '?organization__sid= of A', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f) => notificationPaths.stream({ organization__sid: orgA(f) }), call: streamAnswer,
  },
  // --- files (issue 25; decisions: "Files"): an organization's active members upload and read; its uploader or an Admin deletes
  {
    route: 'GET /files/file/list/{level}/{sid}/{serializer}/', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f, _t, _r, s) => L.file(f, s), mirror: { flag: 'add_permission', of: 'file.post' },
  },
  {
    route: 'POST /files/file/list/{level}/{sid}/{serializer}/', id: 'file.post', note: 'multipart/form-data',
    expect: E(201, 201, 201, 201, 201, 403, 403, 401),
    path: (f, _t, _r, s) => L.file(f, s), call: uploadAs, state: countBy('admin', (f) => L.file(f, 'name')),
  },
  {
    route: 'GET /files/file/detail/{sid}/', note: "the Admin's file", expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => D.file(f.file.sid), mirror: { flag: 'change_permission', of: 'file.delete' },
  },
  {
    route: 'DELETE /files/file/detail/{sid}/', id: 'file.delete', note: "the Admin's file", expect: E(200, 403, 403, 403, 403, 403, 404, 401),
    fresh: true, target: make.file, path: (_f, t) => D.file(t.sid), state: readableBy('admin', (_f, t) => D.file(t.sid)),
  },
  {
    route: 'GET /files/file/download/{sid}/', expect: E(200, 200, 200, 200, 200, 403, 404, 401),
    path: (f) => filePaths.download(f.file.sid),
  },
  // files of a row (level row, decisions: "Files: file cells"): exactly the row's rules to read, its cells' rules to upload
  {
    route: 'GET /files/file/list/{level}/{sid}/{serializer}/', note: "level row: the files of the row's history", expect: E(200, 200, 200, 200, 404, 403, 404, 401),
    path: (f, _t, _r, s) => L.file(f, s, undefined, 'row', f.fileRow.sid), mirror: { flag: 'add_permission', of: 'file.post.row' },
    then: async (f, _t, role, res) => assert.ok(res.json.results.some((r: any) => r.sid === f.rowFile.sid), `${role}: the row's file is listed`),
  },
  {
    route: 'POST /files/file/list/{level}/{sid}/{serializer}/', id: 'file.post.row', note: 'level row: an upload to its file cell (?column=)',
    expect: E(NEEDS_ROLE, 201, 201, 403, 404, 403, 404, 401),
    fresh: true, target: make.row, path: (f, t, _r, s) => L.file(f, s, { column: f.ws.columns.files.sid }, 'row', t.sid), call: uploadAs,
    state: readableBy('admin', (_f, t) => D.row(t.sid)),
    then: async (_f, t, role, res) => assert.equal(res.json.row, t.sid, `${role}: the file is the row's`),
  },
  {
    route: 'GET /files/file/detail/{sid}/', note: 'a file attached to a row: its row\'s rules', expect: E(200, 200, 200, 200, 404, 403, 404, 401),
    path: (f) => D.file(f.rowFile.sid), mirror: { flag: 'change_permission', always: false },
  },
  {
    route: 'DELETE /files/file/detail/{sid}/', note: 'a file attached to a row: its history\'s, never deleted (409 for who reads it)',
    expect: E(409, 409, 409, 409, 404, 403, 404, 401),
    path: (f) => D.file(f.rowFile.sid), state: readableBy('admin', (f) => D.file(f.rowFile.sid)),
  },
  {
    route: 'GET /files/file/download/{sid}/', note: 'a file attached to a row: its row\'s rules', expect: E(200, 200, 200, 200, 404, 403, 404, 401),
    path: (f) => filePaths.download(f.rowFile.sid),
  },
  {
    route: 'GET /files/file/thumbnail/{sid}/', note: "a file attached to a row: its row's rules (a JSON file: no thumbnail, once the job has looked)",
    expect: E(NO_THUMBNAIL, NO_THUMBNAIL, NO_THUMBNAIL, NO_THUMBNAIL, 404, 403, 404, 401),
    path: (f) => `/files/file/thumbnail/${f.rowFile.sid}/`,
    call: async (api, path) => {
      let res = await api.get(path);
      for (let i = 0; i < 600 && res.json?.detail === THUMBNAIL_NOT_YET; i += 1) {
        await sleep(100);
        res = await api.get(path);
      }
      return res;
    },
  },
  {
    route: 'POST /tables/row/upload/{sid}/', note: "labii-sdk's upload(): the presigned post's field column, then the file",
    expect: E(NEEDS_ROLE, 201, 201, 403, 404, 403, 404, 401),
    // The path carries the column after a '#' (never sent): the call sends it as the field before the file.
    fresh: true, target: make.row, path: (f, t) => `/tables/row/upload/${t.sid}/#${f.ws.columns.files.sid}`,
    call: (api, target) => {
      const [url, column] = target.split('#');
      const { body, contentType } = multipart([{ name: 'column', content: column }, { name: 'file', filename: `walk ${unique('f')}.json`, content: '{"walked": true}' }]);
      return api.request('POST', url, { rawBody: body, contentType });
    },
    state: readableBy('admin', (_f, t) => D.row(t.sid)),
    then: async (_f, t, role, res) => assert.equal(res.json.row, t.sid, `${role}: the file is the row's`),
  },
  {
    route: 'POST /files/upload/list/organization/{sid}/', note: 'tus creation with the whole upload, to a file cell (metadata row, column)',
    expect: E(NEEDS_ROLE, 200, 200, 403, 404, 403, 403, 401),
    // The path carries the row and the column after a '#' (never sent): the call puts them in the metadata.
    path: (f) => `${filePaths.resumable(orgA(f))}#${f.fileRow.sid}#${f.ws.columns.files.sid}`,
    state: countBy('admin', (f) => L.file(f, 'name', undefined, 'row', f.fileRow.sid)),
    call: (api, target) => {
      const [url, row, column] = target.split('#');
      return tus(api, 'POST', url, { 'upload-length': '16', 'upload-metadata': tusMetadata({ filename: 'walk.json', row, column }) }, Buffer.from('{"walked": true}'));
    },
    then: async (f, _t, role, res) => assert.equal(res.json.row, f.fileRow.sid, `${role}: the file is the row's`),
  },
  {
    route: 'POST /files/upload/list/organization/{sid}/', note: 'tus creation with the whole upload: the descriptor',
    expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f) => filePaths.resumable(orgA(f)), state: countBy('admin', (f) => L.file(f, 'name')),
    call: (api, target) => tus(api, 'POST', target, { 'upload-length': '16', 'upload-metadata': tusMetadata({ filename: 'walk.json' }) }, Buffer.from('{"walked": true}')),
  },
  {
    route: 'PATCH /files/upload/detail/{id}/', note: "the Admin's upload: its last bytes", expect: E(200, 404, 404, 404, 404, 404, 404, 401),
    fresh: true, target: make.upload, path: (_f, t) => t.location, state: countBy('admin', (f) => L.file(f, 'name')),
    call: (api, target) => tus(api, 'PATCH', target, { 'upload-offset': '0' }, Buffer.from('{"a":true}')),
  },
  {
    route: 'DELETE /files/upload/detail/{id}/', note: "the Admin's upload", expect: E(204, 404, 404, 404, 404, 404, 404, 401),
    fresh: true, target: make.upload, path: (_f, t) => t.location,
    call: (api, target) => tus(api, 'DELETE', target),
    state: async (f, t) => (await tus(f.ws.admin.api, 'HEAD', t.location)).status,
  },
  // --- the live grid (issue 14): active members of the table's organization; each event is filtered by project access
  {
    route: 'GET /tables/row/stream/', note: '?table__sid= of A', expect: E(200, 200, 200, 200, 200, 403, 403, 401),
    path: (f) => `/tables/row/stream/?table__sid=${f.ws.table.sid}`, call: streamAnswer,
  },
  {
    route: 'GET /tables/row/stream/', note: "?project__sid= of A's project as well", expect: E(200, 200, 200, 200, 403, 403, 403, 401),
    path: (f) => `/tables/row/stream/?table__sid=${f.ws.table.sid}&project__sid=${f.ws.project.sid}`, call: streamAnswer,
  },
];

async function inboxSids(api: Api, orgSid: string): Promise<string[]> {
  return assertPage(await api.get(notificationPaths.list(orgSid, 'name', { page_size: 100 }))).results.map((n: any) => n.sid);
}

/** The stream's answer: its status and headers, and the body when it is not a stream (a refusal). */
async function streamAnswer(api: Api, target: string): Promise<Answer> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (api.token) headers.token = api.token;
  const res = await fetch(BASE_URL + target, { headers, signal: controller.signal });
  let text = '';
  if (res.status === 200) controller.abort();
  else text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { method: 'GET', url: BASE_URL + target, path: target, status: res.status, headers: res.headers, text, json };
}

// ------------------------------------------------------------------- checking --

const SERIALIZERS: Serializer[] = ['name', 'list', 'detail'];
const DETAIL_BODIES: Record<number, string> = { 401: MESSAGES.notAuthenticated, 403: MESSAGES.forbidden, 404: MESSAGES.notFound };

/** What is wrong with an answer, or null. */
function mismatch(res: Answer, outcome: Outcome, isListGet: boolean): string | null {
  if (typeof outcome === 'object' && !Array.isArray(outcome)) {
    if (res.status !== outcome.status) return `expected ${outcome.status}, got ${describeAnswer(res, 300)}`;
    return typeof res.json?.detail === 'string' && Object.keys(res.json).length === 1 && outcome.detail.test(res.json.detail)
      ? null : `expected {"detail": ${outcome.detail}}, got ${res.text}`;
  }
  const [status, text] = Array.isArray(outcome) ? outcome : [outcome, undefined];
  if (res.status !== status) return `expected ${status}, got ${describeAnswer(res, 300)}`;
  if (text !== undefined) {
    if (!/^text\/plain/.test(res.headers.get('content-type') ?? '')) return `expected text/plain, got ${res.headers.get('content-type')}`;
    return res.text === text ? null : `expected the body ${JSON.stringify(text)}, got ${JSON.stringify(res.text)}`;
  }
  if (DETAIL_BODIES[status]) {
    return JSON.stringify(res.json) === JSON.stringify({ detail: DETAIL_BODIES[status] }) ? null : `expected {"detail": "${DETAIL_BODIES[status]}"}, got ${res.text}`;
  }
  if (status === 400) {
    const body = res.json;
    const ok = body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length > 0
      && Object.values(body).every((m) => Array.isArray(m) && m.length > 0 && m.every((s) => typeof s === 'string'));
    return ok ? null : `expected field errors, got ${res.text}`;
  }
  if (status === 200 && (res.path.startsWith('/notifications/notification/stream/') || res.path.startsWith('/tables/row/stream/'))) {
    return /^text\/event-stream/.test(res.headers.get('content-type') ?? '') ? null : 'expected an event stream';
  }
  if (status === 204) return res.text === '' ? null : `expected no body, got ${res.text.slice(0, 200)}`;
  if (status === 200 && (res.path.startsWith('/tables/row/export/') || res.path.startsWith('/activities/activity/export/'))) {
    return /^text\/csv/.test(res.headers.get('content-type') ?? '') ? null : 'expected CSV';
  }
  if (status === 200 && /^\/projects\/project\/detail\/\w+\/eln\/$/.test(res.path)) {
    return res.headers.get('content-type') === 'application/zip' ? null : 'expected a zip';
  }
  if (!res.json || typeof res.json !== 'object') return `expected a JSON body, got ${res.text.slice(0, 200)}`;
  if (isListGet) {
    try {
      assertPage(res);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return null;
}

const isSuccess = (o: Outcome) => {
  const status = Array.isArray(o) ? o[0] : typeof o === 'object' ? o.status : o;
  return status >= 200 && status < 300;
};

/** Every answer the outsider, the Alumni and the anonymous caller got: none may show organization A. */
const strangerAnswers: Answer[] = [];

let f: Fixtures;

before(async () => {
  const ws = await newWorkspace({ label: 'walk', widgets: { own: { price: '0.00' } }, rows: 1, columns: { text: 'builtinWidgetTxt', files: 'builtinWidgetFil' } });
  const row = ws.rows[0];
  const cell = await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, ws.columns.text.sid, 'a value');
  const version = assertPage(await ws.admin.api.get(L.version({ ws } as Fixtures, 'name', { row__sid: row.sid }))).results[0];
  const partial = { ws } as Fixtures;
  const workflow = await make.workflow(partial);
  const step = await created(await ws.admin.api.post(L.step(partial, 'detail'),
    { name: `Wait ${unique('s')}`, workflow: workflow.sid, widget: 'builtinWidgetWai', data: { event: 'go' } }));
  const triggered = await ws.admin.api.patch(`${D.workflow(workflow.sid)}?trigger__sid=${row.sid}`, {});
  assert.equal(triggered.status, 200, describeAnswer(triggered));
  const notification = await sendNotification(ws.projectAdmin.api, ws.org.sid, [ws.projectEdit.personnel], { name: `Secret ${unique('n')}` });
  const spare = await make.personnel(partial);
  const membership = await make.membership(partial);
  const apiKey = await make.apiKey(partial);
  f = {
    ws, widget: ws.widgets.own, row, cell, version, workflow, step, execution: triggered.json.execution, notification, spare,
    membership, apiKey, loginUser: await newUser('login'), file: undefined, fileRow: await createRow(ws, { name: `Files ${unique('r')}` }), rowFile: undefined,
  };
  f.file = await make.file(f);
  f.rowFile = await created(await uploadAs(ws.projectAdmin.api, L.file(f, 'detail', { column: ws.columns.files.sid }, 'row', f.fileRow.sid)));
});

// ---------------------------------------------------------------- the walk --

describe('the permission table covers every route', () => {
  test('each path and method of /openapi.json has a row, and each row a route', async () => {
    const res = await anonymous.get('/openapi.json');
    assert.equal(res.status, 200);
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(res.json.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const walked = new Set(TABLE.flatMap((w) => (w.route.includes('{serializer}') ? SERIALIZERS.map((s) => w.route.replace('{serializer}', s)) : [w.route])));
    assert.deepEqual([...documented].filter((r) => !walked.has(r)), [], 'routes of /openapi.json without a row in the permission table');
    assert.deepEqual([...walked].filter((r) => !documented.has(r)), [], 'rows of the permission table naming no route of /openapi.json');
  });
});

describe('every route, by every caller', () => {
  for (const w of TABLE) {
    test(`${w.route}${w.note ? ` (${w.note})` : ''}`, async () => {
      const [method] = w.route.split(' ');
      const serializers: (Serializer | null)[] = w.route.includes('{serializer}') ? SERIALIZERS : [null];
      const problems: string[] = [];
      const isListGet = method === 'GET' && w.route.includes('/list/');
      const shared = w.target && !w.fresh ? await w.target(f, 'admin') : undefined;
      for (const serializer of serializers) {
        for (const role of ROLES) {
          const where = `${role}${serializer ? ` (${serializer})` : ''}`;
          const outcome = w.expect[role];
          const target = w.fresh ? await w.target!(f, role) : shared;
          const path = w.path(f, target, role, serializer ?? 'detail');
          const api = w.as ? await w.as(f, role) : f.ws.api[role];
          const before = !isSuccess(outcome) && w.state ? await w.state(f, target, role) : undefined;
          const res = w.call ? await w.call(api, path) : await api.request(method, path, w.body ? { body: w.body(f, target, role) } : {});
          if ((role === 'outsider' || role === 'alumni' || role === 'anonymous') && !w.own) strangerAnswers.push(res);
          const wrong = mismatch(res, outcome, isListGet);
          if (wrong) {
            problems.push(`${where}: ${wrong}`);
            continue;
          }
          if (!isSuccess(outcome) && w.state) {
            const afterwards = await w.state(f, target, role);
            if (JSON.stringify(afterwards) !== JSON.stringify(before)) {
              problems.push(`${where}: refused, yet the state changed: ${JSON.stringify(before)} → ${JSON.stringify(afterwards)}`);
            }
          }
          if (isSuccess(outcome) && w.mirror) {
            const { flag, of, always } = w.mirror;
            const other = of === undefined ? undefined : TABLE.find((x) => x.id === of);
            assert.ok(always !== undefined || other, `mirror ${of} names a row of the table`);
            const expected = always ?? isSuccess(other!.expect[role]);
            const got = flag === 'add_permission' ? res.json.add_permission : res.json.change_permission;
            if (got !== expected) problems.push(`${where}: ${flag} is ${got}, but the table says ${of} → ${JSON.stringify(other?.expect[role])}`);
          }
          if (isSuccess(outcome) && w.then) {
            try {
              await w.then(f, target, role, res);
            } catch (err) {
              problems.push(`${where}: ${(err as Error).message.split('\n')[0]}`);
            }
          }
        }
      }
      assert.deepEqual(problems, [], `${w.route}: answers that differ from the permission table`);
    });
  }
});

// ------------------------------------------------------------ isolation --

/** The names and addresses of organization A that no stranger may ever read. */
function secretsOfA(): string[] {
  const { ws } = f;
  const people = [ws.admin, ws.projectAdmin, ws.projectEdit, ws.projectView, ws.member, ws.alumni];
  return [
    ws.org.name, ws.project.name, ws.table.name, f.row.name, f.widget.name, f.workflow.name, f.step.name, f.notification.name, f.spare.email,
    ...people.map((p) => p.email),
  ];
}

function assertShowsNothingOfA(res: Answer, context: string) {
  for (const secret of secretsOfA()) {
    assert.ok(!res.text.includes(secret), `${context}: ${res.method} ${res.path} shows ${JSON.stringify(secret)} of organization A: ${res.text.slice(0, 300)}`);
  }
}

/** A well-formed sid that names nothing. */
const NOBODY = 'ZZZZZZZZZZZZZZZZ';

describe('no record of organization A is visible, countable or changeable from organization B', () => {
  let theirs: ForeignRecords;
  let orgB: string;
  let outsider: Api;
  let theirWorkflow: any;

  before(async () => {
    theirs = await foreignRecords(f.ws);
    orgB = f.ws.outsiderOrg.sid;
    outsider = f.ws.outsider.api;
    await createCell(outsider, orgB, theirs.row.sid, theirs.column.sid, 'theirs');
    theirWorkflow = await created(await outsider.post(L.workflow(f, 'detail', undefined, 'organization', orgB), { name: `Theirs ${unique('w')}` }));
  });

  test('no answer to the outsider, the Alumni or an anonymous caller in the walk shows a name or address of A', () => {
    assert.ok(strangerAnswers.length > 100, `the walk ran first (${strangerAnswers.length} answers)`);
    for (const res of strangerAnswers) assertShowsNothingOfA(res, 'walk');
  });

  test('lists of A from B: 403, whatever the page, size or filter (no empty page, no count)', async () => {
    const orgLists = Object.values(L).filter((l) => l !== L.apikey && l !== L.organization && l !== L.member);
    const filters = { page: '99', page_size: '1', row__sid: f.row.sid, table__sid: f.ws.table.sid, project__sid: f.ws.project.sid };
    for (const l of orgLists) {
      for (const query of [undefined, filters]) {
        const res = await outsider.get(l(f, 'name', query));
        assert.equal(mismatch(res, 403, false), null, `${res.path}`);
      }
    }
    const members = await outsider.get(L.member(f, 'name', { page: '2' }, 'project', f.ws.project.sid));
    assert.equal(mismatch(members, 403, false), null, members.path);
  });

  test("B's lists count and show only B's records, also when their filters name records of A", async () => {
    // What A's Admin sees of A: every sid that must never show in B.
    const sidsOfA = new Set<string>();
    const lists = [L.personnel, L.project, L.table, L.widget, L.column, L.row, L.cell, L.version, L.credit, L.workflow, L.step, L.execution, L.notification];
    for (const l of lists) {
      for (const r of assertPage(await f.ws.admin.api.get(l(f, 'name', { page_size: '100' }))).results) {
        // Built-in widgets are everyone's: ours start "builtin", and two carry Labii's own sids (files/files-table.ts).
        if (!String(r.sid).startsWith('builtin') && !LABII_BUILTIN_WIDGETS.has(r.sid)) sidsOfA.add(r.sid);
      }
    }
    assert.ok(sidsOfA.size > 20, 'A has records');
    const probes: Array<[typeof L.row, Record<string, string>]> = [
      [L.cell, { row__sid: f.row.sid }], [L.version, { row__sid: f.row.sid }], [L.execution, { row__sid: f.row.sid }],
      [L.execution, { workflow__sid: f.workflow.sid }], [L.row, { table__sid: f.ws.table.sid }], [L.row, { project__sid: f.ws.project.sid }],
      [L.column, { table__sid: f.ws.table.sid }], [L.workflow, { table__sid: f.ws.table.sid }], [L.step, { workflow__sid: f.workflow.sid }],
      [L.step, { widget__sid: f.widget.sid }],
    ];
    for (const l of lists) probes.push([l, {}]);
    for (const [l, filter] of probes) {
      for (const serializer of SERIALIZERS) {
        const res = await outsider.get(l(f, serializer, { ...filter, page_size: '100' }, 'organization', orgB));
        const context = `${res.path}`;
        assertShowsNothingOfA(res, context);
        // A filter naming a record of A answers exactly as one naming nothing at all.
        const [name, value] = Object.entries(filter)[0] ?? [];
        if (name) {
          const unknown = await outsider.get(l(f, serializer, { ...filter, [name]: NOBODY, page_size: '100' }, 'organization', orgB));
          assert.equal(res.status, unknown.status, `${context}: the same status as for an unknown sid`);
          assert.equal(res.text.replaceAll(value, NOBODY).replaceAll(encodeURIComponent(value), NOBODY), unknown.text, `${context}: the same body as for an unknown sid`);
        }
        if (res.status === 400) continue;
        const page = assertPage(res, undefined, context);
        const leaked = page.results.filter((r) => sidsOfA.has(r.sid) || sidsOfA.has(r.row?.sid));
        assert.deepEqual(leaked, [], `${context}: records of A`);
        assert.equal(page.count, page.results.length, `${context}: the count is what is shown`);
        if (name) {
          assert.equal(page.count, 0, `${context}: nothing matches a record of A`);
          assert.equal(page.add_permission, false, `${context}: add_permission for a record of A`);
        }
      }
    }
  });

  test('writes in B naming records of A answer as for an unknown sid, and A does not change', async () => {
    const b = (l: typeof L.row, query?: Record<string, string>) => l(f, 'detail', query, 'organization', orgB);
    const rowOfA = async () => read(f.ws.admin.api, D.row(f.row.sid));
    const before = await rowOfA();
    const countsOfA = async () => Promise.all([
      countOf(f.ws.admin.api, L.cell(f, 'name', { row__sid: f.row.sid })), countOf(f.ws.admin.api, L.column(f, 'name', { table__sid: f.ws.table.sid })),
      countOf(f.ws.admin.api, L.step(f, 'name', { workflow__sid: f.workflow.sid })), countOf(f.ws.admin.api, L.execution(f, 'name')),
      countOf(f.ws.projectEdit.api, L.notification(f, 'name')), countOf(f.ws.admin.api, L.member(f, 'name', undefined, 'project', f.ws.project.sid)),
    ]);
    const counts = await countsOfA();
    // [what, the sid of A, the request for a sid]
    const probes: Array<[string, string, (sid: string) => Promise<Answer>]> = [
      ['cell POST ?row__sid', f.row.sid, (sid) => outsider.post(b(L.cell, { row__sid: sid }), { column: theirs.column.sid, data: 'x' })],
      ['row POST ?table__sid', f.ws.table.sid, (sid) => outsider.post(b(L.row, { table__sid: sid, project__sid: theirs.project.sid }), { name: 'x' })],
      ['row POST ?project__sid', f.ws.project.sid, (sid) => outsider.post(b(L.row, { table__sid: theirs.table.sid, project__sid: sid }), { name: 'x' })],
      ['column POST ?table__sid', f.ws.table.sid, (sid) => outsider.post(b(L.column, { table__sid: sid }), { name: 'x', widget: 'builtinWidgetTxt' })],
      ['column POST widget', f.widget.sid, (sid) => outsider.post(b(L.column, { table__sid: theirs.table.sid }), { name: 'x', widget: sid })],
      ['workflow POST ?table__sid', f.ws.table.sid, (sid) => outsider.post(b(L.workflow, { table__sid: sid }), { name: 'x' })],
      ['step POST workflow', f.workflow.sid, (sid) => outsider.post(b(L.step), { name: 'x', workflow: sid, widget: 'builtinWidgetWai', data: { event: 'go' } })],
      ['step POST widget', f.widget.sid, (sid) => outsider.post(b(L.step), { name: 'x', workflow: theirWorkflow.sid, widget: sid })],
      ['project member POST personnel', f.spare.sid, (sid) => outsider.post(L.member(f, 'detail', undefined, 'project', theirs.project.sid), { personnel: sid, permission: 'view' })],
      ['notification POST to', f.ws.projectEdit.personnel.sid, (sid) => outsider.post(b(L.notification), { to: [{ sid, name: 'x' }], name: 'x', body: 'x' })],
      ['notification POST parent', f.notification.sid, (sid) => outsider.post(b(L.notification), {
        to: [{ sid: f.ws.outsider.personnel.sid, name: 'x' }], name: 'x', body: 'x', parent: { sid, name: 'x' },
      })],
      ['workflow PATCH ?trigger__sid', f.row.sid, (sid) => outsider.patch(`${D.workflow(theirWorkflow.sid)}?trigger__sid=${sid}`, {})],
    ];
    for (const [what, sidOfA, call] of probes) {
      const [foreign, unknown] = [await call(sidOfA), await call(NOBODY)];
      assert.ok(foreign.status >= 400 && foreign.status < 500, `${what}: refused: ${describeAnswer(foreign)}`);
      assert.equal(foreign.status, unknown.status, `${what}: the same status as for an unknown sid`);
      assert.equal(foreign.text.replaceAll(sidOfA, NOBODY), unknown.text, `${what}: the same body as for an unknown sid`);
      assertShowsNothingOfA(foreign, what);
    }
    assert.deepEqual(await rowOfA(), before, "A's row is unchanged");
    assert.deepEqual(await countsOfA(), counts, "A's cells, columns, steps, executions, notifications and project members are unchanged");
  });

  test('next and previous links stay on the list asked for: same server, path, level, sid and filters', async () => {
    const origin = new URL(BASE_URL).origin;
    const cases: Array<[Api, string]> = [
      [f.ws.admin.api, L.personnel(f, 'list', { page: '2', page_size: '1' })],
      [f.ws.admin.api, L.version(f, 'list', { row__sid: f.row.sid, page: '2', page_size: '1' })],
      [f.ws.admin.api, L.row(f, 'name', { project__sid: f.ws.project.sid, page: '2', page_size: '1' })],
      [f.ws.projectEdit.api, L.cell(f, 'name', { page: '1', page_size: '1' })],
      [f.ws.admin.api, L.member(f, 'name', { page: '2', page_size: '1' }, 'project', f.ws.project.sid)],
      [outsider, L.version(f, 'name', { page: '1', page_size: '1' }, 'organization', orgB)],
    ];
    let links = 0;
    for (const [api, path] of cases) {
      const page = assertPage(await api.get(path), undefined, path);
      const asked = new URL(BASE_URL + path);
      for (const [which, link] of [['next', page.next], ['previous', page.previous]] as const) {
        if (link === null) continue;
        links += 1;
        const url = new URL(link);
        assert.equal(url.origin, origin, `${path}: ${which} stays on this server`);
        assert.equal(url.pathname, asked.pathname, `${path}: ${which} stays on this list`);
        for (const [key, value] of asked.searchParams) if (key !== 'page') assert.equal(url.searchParams.get(key), value, `${path}: ${which} keeps ${key}`);
        const followed = assertPage(await api.get(link), undefined, `${which} of ${path}`);
        assert.equal(followed.count, page.count, `${which} of ${path}: the same list`);
      }
    }
    assert.ok(links >= 6, `links were followed (${links})`);
  });

  test("the live stream of a member of B never carries A's notifications", async () => {
    // Someone in both organizations, whose stream is narrowed to B.
    const both = await addMember(f.ws.admin, f.ws.org, {}, 'both');
    const inB = (await created(await postPersonnel(outsider, orgB, { email: both.email, first_name: 'Both', last_name: 'Orgs' })));
    const streams: Stream[] = [];
    const open = async (api: Api, query?: Record<string, string>, headers?: Record<string, string>) => {
      const s = await openStream(api, query, headers);
      assert.equal(s.status, 200, 'the stream opens');
      streams.push(s);
      return s;
    };
    try {
      const [adminStream, outsiderStream, bothInB, catchingUp] = await Promise.all([
        open(f.ws.admin.api), open(outsider), open(both.api, { organization__sid: orgB }),
        open(outsider, undefined, { 'last-event-id': f.notification.sid }),
      ]);
      // In A: a notification to A's Admin and to the member of both, and a cell change (record-change notifications).
      const inA = await sendNotification(f.ws.projectAdmin.api, f.ws.org.sid, [f.ws.admin.personnel, both.personnel], { name: `Only A ${unique('a')}` });
      const changed = await f.ws.projectEdit.api.patch(D.cell(f.cell.sid), { data: `changed ${unique('d')}` });
      assert.equal(changed.status, 200, describeAnswer(changed));
      await adminStream.waitFor((e) => e.data?.name === inA.name, "A's notification reaches A's Admin");
      // In B: one to the outsider and one to the member of both.
      const toOutsider = await sendNotification(both.api, orgB, [f.ws.outsider.personnel], { name: `B one ${unique('b')}` });
      const toBoth = await sendNotification(outsider, orgB, [inB], { name: `B two ${unique('b')}` });
      await outsiderStream.waitFor((e) => e.data?.name === toOutsider.name, "B's notification reaches the outsider");
      await catchingUp.waitFor((e) => e.data?.name === toOutsider.name, "B's notification reaches the outsider's second stream");
      await bothInB.waitFor((e) => e.data?.name === toBoth.name, "B's notification reaches the member of both");
      await sleep(500);
      const bNames = new Set([toOutsider.name, toBoth.name]);
      for (const [who, s] of [['the outsider', outsiderStream], ['the outsider with Last-Event-ID of A', catchingUp], ['the member of both, narrowed to B', bothInB]] as const) {
        const strangers = s.events.filter((e) => !bNames.has(e.data?.name));
        assert.deepEqual(strangers, [], `${who}: events that are not B's`);
        for (const secret of [...secretsOfA(), inA.name]) assert.ok(!JSON.stringify(s.events).includes(secret), `${who}: ${secret}`);
      }
    } finally {
      for (const s of streams) s.close();
    }
  });
});
