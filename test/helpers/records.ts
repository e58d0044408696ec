// Helpers for the records area (projects, tables, widgets, columns, rows, cells, versions,
// credits): paths, a workspace factory that builds an organization with one caller per
// role, readers that page through whole lists, record shapes, and the version hash
// recomputed independently from docs/versions.md.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Api, anonymous, withQuery, type Answer, type Query } from './http.ts';
import { assertKeys, assertPage, expectStatus, MONEY_RE, SID_RE, TIMESTAMP_RE } from './assertions.ts';
import { addMember, newOrganization, proveEmail, unique, type Serializer, type TestMember } from './factories.ts';

// ------------------------------------------------------------------ paths --

/** A list path builder for `/{app}/{model}/list/{level}/{sid}/{serializer}/`. */
export const listPath = (app: string, model: string) =>
  (sid: string, serializer: Serializer | string = 'detail', query?: Query, level = 'organization') =>
    withQuery(`/${app}/${model}/list/${level}/${encodeURIComponent(sid)}/${serializer}/`, query);

/** A detail path builder for `/{app}/{model}/detail/{sid}/`. */
export const detailPath = (app: string, model: string) => (sid: string) => `/${app}/${model}/detail/${encodeURIComponent(sid)}/`;

export const recordPaths = {
  projectList: listPath('projects', 'project'),
  projectDetail: detailPath('projects', 'project'),
  memberList: (projectSid: string, serializer: Serializer | string = 'detail', query?: Query) =>
    listPath('projects', 'member')(projectSid, serializer, query, 'project'),
  memberDetail: detailPath('projects', 'member'),
  tableList: listPath('tables', 'table'),
  tableDetail: detailPath('tables', 'table'),
  widgetList: listPath('widgets', 'widget'),
  widgetDetail: detailPath('widgets', 'widget'),
  columnList: listPath('tables', 'column'),
  columnDetail: detailPath('tables', 'column'),
  rowList: listPath('tables', 'row'),
  rowDetail: detailPath('tables', 'row'),
  rowVerify: (sid: string) => `/tables/row/detail/${encodeURIComponent(sid)}/verify/`,
  cellList: listPath('tables', 'cell'),
  cellDetail: detailPath('tables', 'cell'),
  versionList: listPath('tables', 'version'),
  versionDetail: detailPath('tables', 'version'),
  creditList: listPath('organizations', 'credit'),
  organizationDetail: (sid: string) => `/organizations/organization/detail/${encodeURIComponent(sid)}/`,
};

// ----------------------------------------------------------------- shapes --

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isBool: Check = (v) => typeof v === 'boolean';
const isInt: Check = (v) => Number.isInteger(v);
const isSid: Check = (v) => typeof v === 'string' && SID_RE.test(v);
const isSidOrNull: Check = (v) => v === null || isSid(v);
const isTimestamp: Check = (v) => typeof v === 'string' && TIMESTAMP_RE.test(v);
const isMoney: Check = (v) => typeof v === 'string' && MONEY_RE.test(v);
const isSignedMoney: Check = (v) => typeof v === 'string' && /^-?\$\d+\.\d{2}$/.test(v);
const isHash: Check = (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
const isPreviousHash: Check = (v) => v === '' || isHash(v);
const isRef: Check = (v) => !!v && typeof v === 'object' && !Array.isArray(v)
  && Object.keys(v).sort().join() === 'name,sid' && isSid((v as any).sid) && isString((v as any).name);
const isRefOrNull: Check = (v) => v === null || isRef(v);
const isObject: Check = (v) => !!v && typeof v === 'object' && !Array.isArray(v);
const isStringOrNull: Check = (v) => v === null || isString(v);
const isUser: Check = (v) => isObject(v) && Object.keys(v as object).sort().join() === 'email,first_name,last_name,sid'
  && isSid((v as any).sid) && isString((v as any).first_name) && isString((v as any).last_name) && isString((v as any).email);
const isCellSummary: Check = (v) => isObject(v) && Object.keys(v as object).sort().join() === 'column,data,sid,widget'
  && isSid((v as any).sid) && isRef((v as any).column) && isRef((v as any).widget) && isString((v as any).data);
const isCellSummaries: Check = (v) => Array.isArray(v) && v.every(isCellSummary);
const isRowData: Check = (v) => isObject(v) && Object.keys(v as object).sort().join() === 'cells,description,is_archived,is_locked,name'
  && isObject((v as any).cells) && Object.values((v as any).cells).every(isString);

/** The records' shapes, key for key: the spec's Cell and Version tables, the design's rows and ledger. */
export const RECORD_SHAPES = {
  'cell.name': { sid: isSid, name: isString },
  'cell.list': { sid: isSid, row: isRef, widget: isRef, price: isMoney, change_permission: isBool },
  'cell.detail': {
    sid: isSid, data: isString, row: isRef, column: isRef, widget: isRef,
    date_updated: isTimestamp, date_created: isTimestamp, change_permission: isBool,
  },
  'row.name': { sid: isSid, name: isString },
  'row.list': {
    sid: isSid, name: isString, table: isRef, project: isRef, is_locked: isBool, is_archived: isBool, version: isInt, change_permission: isBool,
  },
  'row.detail': {
    sid: isSid, name: isString, description: isString, table: isRef, project: isRef, is_locked: isBool, is_archived: isBool,
    version: isInt, hash: isHash, cells: isCellSummaries, created_by: isString, date_created: isTimestamp, date_updated: isTimestamp,
    change_permission: isBool,
  },
  'version.name': { sid: isSid, name: isString },
  'version.list': {
    sid: isSid, name: isString, hash: isHash, previousHash: isPreviousHash, version: isInt, activity_message: isString,
    commit: isStringOrNull, is_valid: isBool, updated_by: isString, date_created: isTimestamp, change_permission: isBool,
  },
  'version.detail': {
    sid: isSid, name: isString, hash: isHash, previousHash: isPreviousHash, version: isInt, activity_message: isString,
    commit: isStringOrNull, is_valid: isBool, updated_by: isString, date_created: isTimestamp, change_permission: isBool, data: isRowData,
  },
  /** GET /tables/version/detail/{sid}/ (spec: data, updated_by as an object; no commit, no is_valid). */
  'version.record': {
    sid: isSid, name: isString, hash: isHash, previousHash: isPreviousHash, version: isInt, data: isRowData,
    activity_message: isString, updated_by: isUser, date_created: isTimestamp, date_updated: isTimestamp, change_permission: isBool,
  },
  'credit.name': { sid: isSid, name: isString },
  'credit.list': {
    sid: isSid, name: isString, amount: isSignedMoney, balance_after: isMoney, cell: isSidOrNull, row: isSidOrNull, user: isRefOrNull,
    date_created: isTimestamp,
  },
  'credit.detail': {
    sid: isSid, name: isString, amount: isSignedMoney, balance_after: isMoney, cell: isSidOrNull, row: isSidOrNull, user: isRefOrNull,
    date_created: isTimestamp,
  },
  'verify': {
    row: isRef, versions: isInt, head_version: isInt, is_valid: isBool,
    first_invalid_version: (v) => v === null || isInt(v),
    // A problem of a file (issue 25) names it too: `file`.
    problems: (v) => Array.isArray(v) && v.every((p) => isObject(p) && ['problem,version', 'file,problem,version'].includes(Object.keys(p).sort().join())
      && isInt(p.version) && isString(p.problem) && (p.file === undefined || (isObject(p.file) && isString(p.file.sid) && isString(p.file.name)))),
    date_verified: isTimestamp,
  },
} satisfies Record<string, Record<string, Check>>;

export type RecordShape = keyof typeof RECORD_SHAPES;

/** The record has exactly the shape's keys, each of the shape's type and form. */
export function assertRecordShape(record: unknown, shape: RecordShape, context = ''): any {
  const checks = RECORD_SHAPES[shape] as Record<string, Check>;
  assertKeys(record, Object.keys(checks), `${context ? `${context}: ` : ''}${shape}`);
  for (const [key, check] of Object.entries(checks)) {
    const value = (record as Record<string, unknown>)[key];
    assert.ok(check(value), `${context ? `${context}: ` : ''}${shape}.${key} has the wrong type or form: ${JSON.stringify(value)}`);
  }
  return record;
}

/** A 200 page whose every result has `shape`; returns the page. */
export function assertRecordPage(res: Answer, shape: RecordShape, context = '') {
  const page = assertPage(res, undefined, context);
  page.results.forEach((r, i) => assertRecordShape(r, shape, `${context} results[${i}]`));
  return page;
}

// ------------------------------------------------------------------ money --

/** Whole cents of a formatted amount ("$0.25" → 25, "-$1.00" → -100), exactly, without floats. */
export function cents(money: string): number {
  const m = /^(-?)\$(\d+)\.(\d{2})$/.exec(money);
  assert.ok(m, `not a formatted amount: ${JSON.stringify(money)}`);
  return (m[1] ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3]));
}

/** Cents as the API formats them ("$0.25", "-$0.25"). */
export function money(amountInCents: number): string {
  const abs = Math.abs(amountInCents);
  return `${amountInCents < 0 ? '-' : ''}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

// ------------------------------------------------------------ version hash --

const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** docs/versions.md's canonical JSON: keys sorted by code point, no whitespace, strings as JSON.stringify writes them. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object).sort(byCodePoint).map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(',')}}`;
}

/** SHA-256 (hex) of {row, version, previousHash, data, updated_by, date_created}, as docs/versions.md defines it. */
export function versionHash(content: { row: string; version: number; previousHash: string; data: unknown; updated_by: string; date_created: string }): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

// ------------------------------------------------------------------ roles --

/** Every kind of caller the records endpoints distinguish. */
export const ROLES = ['admin', 'projectAdmin', 'projectEdit', 'projectView', 'member', 'alumni', 'outsider', 'anonymous'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_NAMES: Record<Role, string> = {
  admin: 'org Admin without a project role',
  projectAdmin: 'Project Admin',
  projectEdit: 'Project Edit',
  projectView: 'Project View',
  member: 'Member without a project role',
  alumni: 'Alumni (a former Project Edit)',
  outsider: 'outsider (Admin of another organization)',
  anonymous: 'no token',
};

// -------------------------------------------------------------- workspace --

export interface WidgetSpec {
  price?: string;
  addable_at_readonly?: boolean;
}

export interface WorkspaceOptions {
  label?: string;
  /** Organization widgets by key (default: none). */
  widgets?: Record<string, WidgetSpec>;
  /** Columns by key: the key of a widget above, or a widget sid (e.g. the built-in "builtinWidgetTxt"). Default {text: 'builtinWidgetTxt'}. */
  columns?: Record<string, string>;
  /** How many rows the Project Admin creates. Default 1. */
  rows?: number;
  /** Create every role's caller (default true); false: only the admin and the Project Admin. */
  allRoles?: boolean;
}

export interface Workspace {
  org: { sid: string; name: string; credits: string };
  /** The organization's creator: an org Admin without any project role. */
  admin: TestMember;
  projectAdmin: TestMember;
  projectEdit: TestMember;
  projectView: TestMember;
  /** A Member of the organization with no role in the project. */
  member: TestMember;
  /** A former member (archived personnel) who was Project Edit. */
  alumni: TestMember;
  /** The Admin of another organization, and that organization. */
  outsider: TestMember;
  outsiderOrg: { sid: string; name: string; credits: string };
  project: any;
  table: any;
  widgets: Record<string, any>;
  columns: Record<string, any>;
  rows: any[];
  /** The caller of each role. */
  api: Record<Role, Api>;
}

async function created(res: Answer, context: string): Promise<any> {
  expectStatus(res, 201, context);
  return res.json;
}

/**
 * A fresh organization with a project, a table, widgets, columns and rows, and one caller
 * of every role: its creator (org Admin, no project role), a Project Admin, a Project
 * Edit, a Project View, a Member without a project role, an Alumni (a Project Edit who
 * was then archived), and the Admin of another organization.
 */
export async function newWorkspace(options: WorkspaceOptions = {}): Promise<Workspace> {
  const label = options.label ?? 'rec';
  const allRoles = options.allRoles ?? true;
  const [{ admin, org }, other] = await Promise.all([
    newOrganization(`${label}admin`),
    allRoles ? newOrganization(`${label}outsider`) : Promise.resolve(null),
  ]);
  const add = (role: string) => addMember(admin, org, {}, `${label}${role}`);
  const [projectAdmin, projectEdit, projectView, member, alumni] = await Promise.all(
    allRoles ? [add('padmin'), add('pedit'), add('pview'), add('member'), add('alumni')] : [add('padmin')],
  );
  const project = await created(await admin.api.post(recordPaths.projectList(org.sid), { name: `Project ${unique('p')}` }), 'project');
  const grant = async (who: TestMember | undefined, permission: string) => {
    if (!who) return;
    await created(await admin.api.post(recordPaths.memberList(project.sid), { personnel: who.personnel.sid, permission }), `project role ${permission}`);
  };
  await Promise.all([grant(projectAdmin, 'admin'), grant(projectEdit, 'edit'), grant(projectView, 'view'), grant(alumni, 'edit')]);
  if (alumni) {
    expectStatus(await admin.api.patch(`/organizations/personnel/detail/${alumni.personnel.sid}/`, { is_archived: 'true' }), 200, 'archiving the alumni');
  }
  const table = await created(await admin.api.post(recordPaths.tableList(org.sid), { name: `Table ${unique('t')}`, description: 'records' }), 'table');
  const widgets: Record<string, any> = {};
  for (const [key, spec] of Object.entries(options.widgets ?? {})) {
    widgets[key] = await created(await admin.api.post(recordPaths.widgetList(org.sid), {
      name: `Widget ${key} ${unique('w')}`, description: key, price: spec.price ?? '0.00', addable_at_readonly: spec.addable_at_readonly ?? false,
    }), `widget ${key}`);
  }
  const columns: Record<string, any> = {};
  let order = 0;
  for (const [key, widget] of Object.entries(options.columns ?? { text: 'builtinWidgetTxt' })) {
    const widgetSid = widgets[widget]?.sid ?? widget;
    columns[key] = await created(await admin.api.post(recordPaths.columnList(org.sid, 'detail', { table__sid: table.sid }), {
      name: `Column ${key}`, widget: widgetSid, order: order++,
    }), `column ${key}`);
  }
  const ws = {
    org, admin, projectAdmin, projectEdit, projectView, member, alumni,
    outsider: other?.admin, outsiderOrg: other?.org, project, table, widgets, columns, rows: [] as any[],
  } as unknown as Workspace;
  ws.api = {
    admin: admin.api,
    projectAdmin: projectAdmin.api,
    projectEdit: projectEdit?.api,
    projectView: projectView?.api,
    member: member?.api,
    alumni: alumni?.api,
    outsider: other?.admin.api,
    anonymous,
  } as Record<Role, Api>;
  for (let i = 0; i < (options.rows ?? 1); i += 1) ws.rows.push(await createRow(ws));
  return ws;
}

/** The records of the outsider's own organization: a project they are Project Admin of, a table, a text column and a row. */
export interface ForeignRecords {
  project: any;
  table: any;
  column: any;
  row: any;
}

const foreign = new WeakMap<Workspace, Promise<ForeignRecords>>();

/** Builds (once per workspace) records in the outsider's organization, to aim at from ours. */
export function foreignRecords(ws: Workspace): Promise<ForeignRecords> {
  let made = foreign.get(ws);
  if (!made) {
    made = (async () => {
      const api = ws.outsider.api;
      const orgSid = ws.outsiderOrg.sid;
      const project = await created(await api.post(recordPaths.projectList(orgSid), { name: `Theirs ${unique('p')}` }), 'their project');
      await created(await api.post(recordPaths.memberList(project.sid), { personnel: ws.outsider.personnel.sid, permission: 'admin' }), 'their project role');
      const table = await created(await api.post(recordPaths.tableList(orgSid), { name: `Their table ${unique('t')}` }), 'their table');
      const column = await created(await api.post(recordPaths.columnList(orgSid, 'detail', { table__sid: table.sid }), { name: 'Their text', widget: 'builtinWidgetTxt' }), 'their column');
      const row = await created(await api.post(recordPaths.rowList(orgSid, 'detail', { table__sid: table.sid, project__sid: project.sid }), { name: `Their row ${unique('r')}` }), 'their row');
      return { project, table, column, row };
    })();
    foreign.set(ws, made);
  }
  return made;
}

/** A small workspace on any server: one user who is the organization's Admin and the project's Project Admin, a table and text columns. */
export interface SmallWorkspace {
  baseUrl: string;
  user: { sid: string; email: string; first_name: string; last_name: string; token: string };
  api: Api;
  org: { sid: string; name: string };
  project: any;
  table: any;
  columns: any[];
}

/**
 * Builds a SmallWorkspace on `server` (the factories talk to BASE_URL by default; this one
 * serves tests that start a server of their own).
 */
export async function newSmallWorkspaceAt(server: { baseUrl: string; dataDir: string }, label = 'small', columnCount = 2): Promise<SmallWorkspace> {
  const { baseUrl } = server;
  const guest = new Api(null, 'token', baseUrl);
  const email = `${unique(label)}@records.test`;
  const password = `Pw-${unique('p')}-9!`;
  const first_name = label.charAt(0).toUpperCase() + label.slice(1);
  const last_name = 'Tester';
  expectStatus(await guest.post('/accounts/signup/', { email, password, first_name, last_name }), 201, 'signup');
  await proveEmail(email, server); // the mailed link, read from the server's DATA_DIR/mail
  const auth = expectStatus(await guest.post('/accounts/auth/', { username: email, password }), 200, 'login').json;
  const token = auth.token as string;
  const signed = { sid: auth.user.sid as string };
  const api = new Api(token, 'token', baseUrl);
  const org = await created(await api.post(`/organizations/organization/list/user/${signed.sid}/detail/`, { name: `Org ${unique('o')}` }), 'organization');
  const personnel = assertPage(await api.get(`/organizations/personnel/list/organization/${org.sid}/name/`)).results[0];
  const project = await created(await api.post(recordPaths.projectList(org.sid), { name: `Project ${unique('p')}` }), 'project');
  await created(await api.post(recordPaths.memberList(project.sid), { personnel: personnel.sid, permission: 'admin' }), 'project role');
  const table = await created(await api.post(recordPaths.tableList(org.sid), { name: `Table ${unique('t')}` }), 'table');
  const columns: any[] = [];
  for (let i = 0; i < columnCount; i += 1) {
    columns.push(await created(await api.post(recordPaths.columnList(org.sid, 'detail', { table__sid: table.sid }), { name: `Text ${i}`, widget: 'builtinWidgetTxt', order: i }), 'column'));
  }
  return { baseUrl, user: { sid: signed.sid, email, first_name, last_name, token }, api, org, project, table, columns };
}

// ------------------------------------------------------------------- rows --

/** POST a row of the workspace's table and project (as `api`, default the Project Admin). */
export function postRow(ws: Workspace, body: Record<string, unknown> = { name: `Row ${unique('r')}` }, api: Api = ws.projectAdmin.api): Promise<Answer> {
  return api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), body);
}

/** A new row (detail shape), created by the Project Admin unless `api` says otherwise. */
export async function createRow(ws: Workspace, body?: Record<string, unknown>, api?: Api): Promise<any> {
  const res = await postRow(ws, body, api);
  expectStatus(res, 201, 'creating a row');
  return res.json;
}

export type RowState = 'open' | 'locked' | 'archived';
export const ROW_STATES: readonly RowState[] = ['open', 'locked', 'archived'];

/** Puts a row in `state` (as the Project Admin); returns the row detail. */
export async function setRowState(ws: Workspace, rowSid: string, state: RowState): Promise<any> {
  const body = { open: { is_locked: false, is_archived: false }, locked: { is_locked: true }, archived: { is_archived: true } }[state];
  const res = await ws.projectAdmin.api.patch(recordPaths.rowDetail(rowSid), body);
  expectStatus(res, 200, `making row ${rowSid} ${state}`);
  return res.json;
}

/** A row's detail as `api` sees it (asserts 200). */
export async function readRow(api: Api, rowSid: string): Promise<any> {
  return expectStatus(await api.get(recordPaths.rowDetail(rowSid)), 200, `reading row ${rowSid}`).json;
}

// ------------------------------------------------------------------ cells --

export function postCell(api: Api, orgSid: string, rowSid: string | undefined, column: string, data: string, serializer: Serializer = 'detail'): Promise<Answer> {
  return api.post(recordPaths.cellList(orgSid, serializer, { row__sid: rowSid }), { column, data });
}

export function patchCell(api: Api, cellSid: string, data: string): Promise<Answer> {
  return api.patch(recordPaths.cellDetail(cellSid), { data });
}

/** A new cell (asserts 201 and the detail shape). */
export async function createCell(api: Api, orgSid: string, rowSid: string, column: string, data: string): Promise<any> {
  const res = await postCell(api, orgSid, rowSid, column, data);
  expectStatus(res, 201, `creating a cell of row ${rowSid}`);
  return assertRecordShape(res.json, 'cell.detail', 'created cell');
}

// ------------------------------------------------------------- whole lists --

/** Every record of a list, page by page (asserting each page's envelope). */
export async function readAll(api: Api, path: (query: Query) => string): Promise<any[]> {
  const results: any[] = [];
  for (let page = 1; page <= 1000; page += 1) {
    const body = assertPage(await api.get(path({ page, page_size: 100 })), undefined, `page ${page}`);
    results.push(...body.results);
    if (body.next === null) return results;
  }
  throw new Error('more than 1000 pages');
}

/** A row's versions in version order, in the list shape that carries `data` (or `serializer`). */
export function listVersions(api: Api, orgSid: string, rowSid: string, serializer: Serializer = 'detail', query: Query = {}): Promise<any[]> {
  return readAll(api, (q) => recordPaths.versionList(orgSid, serializer, { row__sid: rowSid, ...query, ...q }));
}

/** A row's cells in column order (detail shape). */
export function listCells(api: Api, orgSid: string, rowSid: string, serializer: Serializer = 'detail'): Promise<any[]> {
  return readAll(api, (q) => recordPaths.cellList(orgSid, serializer, { row__sid: rowSid, ...q }));
}

/** The organization's credit ledger, newest first (as an Admin). */
export function listLedger(api: Api, orgSid: string): Promise<any[]> {
  return readAll(api, (q) => recordPaths.creditList(orgSid, 'list', q));
}

/** The organization's credits, as formatted by its detail ("$1.00"). */
export async function readCredits(api: Api, orgSid: string): Promise<string> {
  const res = await api.get(recordPaths.organizationDetail(orgSid));
  expectStatus(res, 200, 'reading the organization');
  assert.match(res.json.credits, MONEY_RE);
  return res.json.credits;
}

/** How many versions a row has, from the version list's count. */
export async function countVersions(api: Api, orgSid: string, rowSid: string): Promise<number> {
  const res = await api.get(recordPaths.versionList(orgSid, 'name', { row__sid: rowSid, page_size: 1 }));
  return assertPage(res, undefined, 'counting versions').count;
}

/** A row's verification report (asserts 200 and its shape). */
export async function verifyRow(api: Api, rowSid: string): Promise<any> {
  const res = await api.get(recordPaths.rowVerify(rowSid));
  expectStatus(res, 200, `verifying row ${rowSid}`);
  return assertRecordShape(res.json, 'verify', 'verify report');
}

// -------------------------------------------------------- nothing changed --

export interface RowSnapshot {
  row: any;
  cells: any[];
  versions: number;
  credits: string;
  ledger: number;
}

/** What a refused write must leave as it was: the row with its cells, its versions, the credits and the ledger (read as the org Admin). */
export async function snapshotRow(ws: Pick<Workspace, 'admin' | 'org'>, rowSid: string): Promise<RowSnapshot> {
  const api = ws.admin.api;
  const [row, cells, versions, credits, ledger] = await Promise.all([
    readRow(api, rowSid),
    listCells(api, ws.org.sid, rowSid),
    countVersions(api, ws.org.sid, rowSid),
    readCredits(api, ws.org.sid),
    api.get(recordPaths.creditList(ws.org.sid, 'name', { page_size: 1 })).then((res) => assertPage(res, undefined, 'ledger').count),
  ]);
  return { row, cells, versions, credits, ledger };
}

/** Re-reads the row and asserts nothing changed since `before`; returns what it read. */
export async function assertRowUnchanged(ws: Pick<Workspace, 'admin' | 'org'>, rowSid: string, before: RowSnapshot, context: string): Promise<RowSnapshot> {
  const after = await snapshotRow(ws, rowSid);
  assert.deepEqual(after, before, `${context}: a refused write changed nothing (row, cells, versions, credits, ledger)`);
  return after;
}

/**
 * The versions (list `detail` shape, in order) form an intact chain: numbered 1..n,
 * each previousHash the hash before it ("" first), every is_valid true, hashes and sids
 * distinct, each name "<row name at that version> (n)". (recomputeHash checks a hash
 * itself; it needs the author's user sid, which only the version detail shows.)
 */
export function assertIntactChain(versions: any[], context = ''): void {
  const where = context ? `${context}: ` : '';
  assert.deepEqual(versions.map((v) => v.version), versions.map((_v, i) => i + 1), `${where}versions numbered 1..n without gap or duplicate`);
  let previous = '';
  for (const v of versions) {
    assertRecordShape(v, 'version.detail', `${where}version ${v.version}`);
    assert.equal(v.previousHash, previous, `${where}version ${v.version} links to the hash before it`);
    assert.equal(v.is_valid, true, `${where}version ${v.version} is valid`);
    assert.equal(v.name, `${v.data.name} (${v.version})`, `${where}version ${v.version} name`);
    previous = v.hash;
  }
  assert.equal(new Set(versions.map((v) => v.hash)).size, versions.length, `${where}every hash differs`);
  assert.equal(new Set(versions.map((v) => v.sid)).size, versions.length, `${where}every sid differs`);
}

/** The hash of a version recomputed from what the API shows; updated_by is the author's user sid (from the version detail). */
export function recomputeHash(rowSid: string, v: { version: number; previousHash: string; data: unknown; date_created: string }, updatedBySid: string): string {
  return versionHash({ row: rowSid, version: v.version, previousHash: v.previousHash, data: v.data, updated_by: updatedBySid, date_created: v.date_created });
}

