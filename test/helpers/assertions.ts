// Assertions on answers: exact statuses, exact bodies, exact key sets of the spec's shapes.
import assert from 'node:assert/strict';
import { describeAnswer, type Answer } from './http.ts';

export const TIMESTAMP_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
export const DATE_RE = /^\d{4}-\d\d-\d\d$/;
export const MONEY_RE = /^\$\d+\.\d{2}$/;
// 16 characters; two built-in widgets have Labii's own sids (labii-sdk's upload() looks for them).
export const SID_RE = /^(?:[0-9A-Za-z]{16}|JMPS0a40x5eLQV16afk|KNQT0a40x5fMRW27bgl)$/;

/** The bodies the design fixes. */
export const MESSAGES = {
  notAuthenticated: 'Authentication credentials were not provided.',
  invalidToken: 'Invalid token.',
  forbidden: 'You do not have permission to perform this action.',
  notFound: 'Not found.',
  invalidPage: 'Invalid page.',
  badCredentials: 'Unable to log in with provided credentials.',
  wrongLevel: 'Wrong level - the provided level is not acceptable',
  wrongSerializer: 'Wrong serializer - the provided serializer is not acceptable',
  wrongId: 'Wrong id - the provided sid is not correct',
  lastAdmin: 'An organization needs at least one active administrator; make another member an administrator first.',
  nulCharacter: 'Null characters are not allowed.',
  notJson: 'JSON parse error - the request body is not valid JSON.',
  emailNotVerified: 'Prove your email address first: follow the link mailed to it (POST /accounts/verifyemail/resend/ mails a new one).',
} as const;

/** The 403 detail of an API key doing what only a session may (issue 21): `what` is "end sessions", "create API keys" … */
export function SESSION_ONLY(what: string): string {
  return `An API key cannot ${what}: only a signed-in session can (sign in with POST /accounts/auth/ or the web app). `
    + 'An API key may not create API keys, delete other keys, change the password or the sign-in address, end sessions, or administer the instance.';
}

function where(context: string): string {
  return context ? `${context}: ` : '';
}

/** The status is exactly `status`. */
/** The 403 detail of an org Admin without a project role writing a row or a cell (issue 12): why, and the request that fixes it. */
export function needsProjectRole(w: { project: { sid: string }; admin: { personnel: { sid: string } } }): string {
  return 'You are not a member of this project. An organization Admin reads every project but writes its rows and cells only with a project role: '
    + `add yourself to the project first (POST /projects/member/list/project/${w.project.sid}/detail/ with {"personnel": "${w.admin.personnel.sid}", "permission": "edit"}).`;
}

export function expectStatus(res: Answer, status: number, context = ''): Answer {
  assert.equal(res.status, status, `${where(context)}expected HTTP ${status}, got ${describeAnswer(res)}`);
  return res;
}

/** A JSON body exactly {"detail": detail} with the given status. */
export function expectDetail(res: Answer, status: number, detail: string, context = ''): Answer {
  expectStatus(res, status, context);
  assertJsonType(res, context);
  assert.deepEqual(res.json, { detail }, `${where(context)}body of ${describeAnswer(res)}`);
  return res;
}

export const expectForbidden = (res: Answer, context = '') => expectDetail(res, 403, MESSAGES.forbidden, context);
export const expectNotFound = (res: Answer, context = '') => expectDetail(res, 404, MESSAGES.notFound, context);
export const expectNotAuthenticated = (res: Answer, context = '') => expectDetail(res, 401, MESSAGES.notAuthenticated, context);
export const expectInvalidToken = (res: Answer, context = '') => expectDetail(res, 401, MESSAGES.invalidToken, context);

/** A plain-text body equal to `message`, with the given status. */
export function expectPlainText(res: Answer, status: number, message: string, context = ''): Answer {
  expectStatus(res, status, context);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/, `${where(context)}content type of ${describeAnswer(res)}`);
  assert.equal(res.text, message, `${where(context)}plain-text body of ${res.method} ${res.path}`);
  return res;
}

/** The answer's content type is JSON. */
export function assertJsonType(res: Answer, context = ''): void {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${where(context)}content type of ${describeAnswer(res)}`);
}

/**
 * 400 with field errors {"field": ["message"]}. `expected` is either the exact body, or
 * the exact list of fields (each with at least one non-empty message).
 */
export function expectFieldErrors(res: Answer, expected: Record<string, string[]> | string[], context = ''): Answer {
  expectStatus(res, 400, context);
  assertJsonType(res, context);
  const body = res.json as Record<string, unknown>;
  assert.ok(body && typeof body === 'object' && !Array.isArray(body), `${where(context)}field errors must be an object: ${describeAnswer(res)}`);
  for (const [field, messages] of Object.entries(body)) {
    assert.ok(
      Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string' && m.length > 0),
      `${where(context)}${field} must carry a list of messages: ${describeAnswer(res)}`,
    );
  }
  if (Array.isArray(expected)) {
    assert.deepEqual(Object.keys(body).sort(), [...expected].sort(), `${where(context)}fields in error: ${describeAnswer(res)}`);
  } else {
    assert.deepEqual(body, expected, `${where(context)}field errors of ${res.method} ${res.path}`);
  }
  return res;
}

/** A 4xx answer that is not a server failure, with a body that says something. */
export function expectClientError(res: Answer, context = ''): Answer {
  assert.ok(res.status >= 400 && res.status < 500, `${where(context)}expected a 4xx refusal, got ${describeAnswer(res)}`);
  assert.ok(res.text.length > 0, `${where(context)}a refusal must say why: ${describeAnswer(res)}`);
  return res;
}

/** 405 with the Allow header listing exactly `allow`. */
export function expectMethodNotAllowed(res: Answer, allow: string[], context = ''): Answer {
  expectDetail(res, 405, `Method "${res.method}" not allowed.`, context);
  const header = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter(Boolean).sort();
  assert.deepEqual(header, [...allow].sort(), `${where(context)}Allow header of ${res.method} ${res.path}`);
  return res;
}

/** The object has exactly these keys. */
export function assertKeys(value: unknown, keys: readonly string[], context = ''): void {
  assert.ok(value && typeof value === 'object' && !Array.isArray(value), `${where(context)}expected an object, got ${JSON.stringify(value)}`);
  assert.deepEqual(Object.keys(value as object).sort(), [...keys].sort(), `${where(context)}keys of ${JSON.stringify(value)}`);
}

// ------------------------------------------------------------------ shapes --

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isBool: Check = (v) => typeof v === 'boolean';
const isSid: Check = (v) => typeof v === 'string' && SID_RE.test(v);
const isDate: Check = (v) => typeof v === 'string' && DATE_RE.test(v);
const isDateOrNull: Check = (v) => v === null || isDate(v);
const isTimestamp: Check = (v) => typeof v === 'string' && TIMESTAMP_RE.test(v);
const isMoney: Check = (v) => typeof v === 'string' && MONEY_RE.test(v);
const isDashboard: Check = (v) => Array.isArray(v)
  && v.every((e) => e && typeof e === 'object' && Object.keys(e).sort().join() === 'link,note' && isString(e.link) && isString(e.note));

/** The response shapes, key for key (the spec's Personnel member table; the design's other records). */
export const SHAPES = {
  'personnel.name': { sid: isSid, name: isString },
  'personnel.list': {
    sid: isSid, name: isString, email: isString, title: isString, date_start: isDate, date_end: isDateOrNull,
    is_administrator: isBool, is_archived: isBool, change_permission: isBool,
  },
  'personnel.detail': {
    sid: isSid, name: isString, email: isString, first_name: isString, last_name: isString, title: isString,
    date_start: isDate, date_end: isDateOrNull, is_administrator: isBool, is_archived: isBool,
    dashboard: isDashboard, is_use_single_sign_on: isBool,
    should_receive_weekly_digest: isBool, should_receive_statement_digest: isBool,
    should_receive_mention_notification: isBool, should_receive_record_change_notification: isBool,
    should_receive_notification_email: isBool, metadata: Array.isArray as Check,
    change_permission: isBool, updated_by: isString, date_updated: isTimestamp,
  },
  'organization.name': { sid: isSid, name: isString },
  'organization.list': {
    sid: isSid, name: isString, username: isString, description: isString, logo_icon: isString, logo_wordmark: isString,
    credits: isMoney, change_permission: isBool,
  },
  'organization.detail': {
    sid: isSid, name: isString, username: isString, description: isString, logo_icon: isString, logo_wordmark: isString,
    credits: isMoney, credits_contact: isString, dashboard: isDashboard, metadata: (v) => typeof v === 'object' && v !== null,
    should_receive_weekly_digest: isBool, personnel: (v) => Array.isArray(v) && v.every((p) => isSid(p.sid) && isString(p.name)),
    updated_by: (v) => v === null || (typeof v === 'object' && isSid((v as { sid: unknown }).sid)),
    date_created: isTimestamp, date_updated: isTimestamp, change_permission: isBool,
  },
  'apikey.name': { sid: isSid, name: isString },
  'apikey.list': { sid: isSid, name: isString, date_created: isTimestamp, last_used: isTimestamp, change_permission: isBool },
  'apikey.detail': { sid: isSid, name: isString, date_created: isTimestamp, last_used: isTimestamp, change_permission: isBool },
  'apikey.created': { sid: isSid, name: isString, key: isString, date_created: isTimestamp },
  user: { sid: isSid, first_name: isString, last_name: isString, email: isString },
} satisfies Record<string, Record<string, Check>>;

export type ShapeName = keyof typeof SHAPES;

/** The keys of a shape. */
export function shapeKeys(shape: ShapeName): string[] {
  return Object.keys(SHAPES[shape]);
}

/** The record has exactly the shape's keys, each of the shape's type. */
export function assertShape(record: unknown, shape: ShapeName, context = ''): void {
  const checks = SHAPES[shape] as Record<string, Check>;
  assertKeys(record, Object.keys(checks), `${where(context)}${shape}`);
  for (const [key, check] of Object.entries(checks)) {
    const value = (record as Record<string, unknown>)[key];
    assert.ok(check(value), `${where(context)}${shape}.${key} has the wrong type or form: ${JSON.stringify(value)}`);
  }
}

export const PAGE_KEYS = ['page_size', 'page_number', 'page_count', 'count', 'next', 'previous', 'add_permission', 'results'];

export interface Page { page_size: number; page_number: number; page_count: number; count: number; next: string | null; previous: string | null; add_permission: boolean; results: any[] }

/**
 * A 200 page: exactly the spec's envelope, consistent counts, absolute links present
 * exactly when there is a next/previous page, and every result in `shape`.
 */
export function assertPage(res: Answer, shape?: ShapeName, context = ''): Page {
  expectStatus(res, 200, context);
  const page = res.json as Page;
  assertKeys(page, PAGE_KEYS, `${where(context)}page envelope of ${res.path}`);
  for (const key of ['page_size', 'page_number', 'page_count', 'count'] as const) {
    assert.ok(Number.isInteger(page[key]) && page[key] >= 0, `${where(context)}${key} must be a whole number: ${page[key]}`);
  }
  assert.equal(typeof page.add_permission, 'boolean', `${where(context)}add_permission must be a boolean`);
  assert.ok(Array.isArray(page.results), `${where(context)}results must be an array`);
  assert.equal(page.page_count, Math.max(1, Math.ceil(page.count / page.page_size)), `${where(context)}page_count`);
  const expectedLength = page.page_number < page.page_count ? page.page_size : page.count - page.page_size * (page.page_count - 1);
  assert.equal(page.results.length, expectedLength, `${where(context)}number of results on page ${page.page_number}`);
  assert.equal(page.next === null, page.page_number >= page.page_count, `${where(context)}next is null exactly on the last page`);
  assert.equal(page.previous === null, page.page_number === 1, `${where(context)}previous is null exactly on the first page`);
  for (const link of [page.next, page.previous]) {
    if (link !== null) assert.match(link, /^https?:\/\//, `${where(context)}links are absolute URLs: ${link}`);
  }
  if (shape) page.results.forEach((record, i) => assertShape(record, shape, `${where(context)}results[${i}]`));
  return page;
}
