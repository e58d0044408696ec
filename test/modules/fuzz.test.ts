// Fuzz (issue 7, point 4): every path × method of /openapi.json is driven with generated
// path sids, levels, serializers, query strings, headers and bodies — valid, invalid,
// boundary, huge, unicode, injection — as an org Admin (who is also Project Admin, so
// nearly every route is reachable), a Member, the Admin of another organization and no
// one. Every answer: no 5xx, under a second, no internals (stack, SQL, paths) in the
// body; then the server is still healthy. The strict-body rules are asserted one by one
// on every body route: unknown field 400, JSON only (415), malformed or empty JSON 400,
// over the body limit 413.
//
//   FUZZ_SEED=<n>      replay a run (the seed is printed with every failure)
//   FUZZ_PER_OP=<n>    generated requests per operation (default 24)
//   FUZZ_LOG=<file>    append every request, as JSON, to the file before it is sent
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { anonymous, Api } from '../helpers/http.ts';
import { assertPage, expectStatus, MESSAGES } from '../helpers/assertions.ts';
import { PATHS, authenticate, login, newUser, paths, unique, uniqueEmail } from '../helpers/factories.ts';
import { upload } from '../helpers/files.ts';
import { INSTANCE_ADMIN } from '../helpers/env.ts';
import {
  createCell, foreignRecords, listVersions, newWorkspace, recordPaths, type Workspace,
} from '../helpers/records.ts';
import {
  Body, Generator, INJECTIONS, NUMBER_STRINGS, Rng, UNICODE, closeConnections, operationsOf, send,
  type JsonSchema, type Operation, type RawAnswer, type RawRequest,
} from '../helpers/fuzz.ts';

const SEED = Number(process.env.FUZZ_SEED ?? randomInt(1, 2 ** 31));
const PER_OPERATION = Number(process.env.FUZZ_PER_OP ?? 24);
const CONCURRENCY = 4;
/** Under a second on an idle machine; scaled by the load average per core at the time (a busy CI machine is not a slow route). */
const SLOW_MS = 1000;
const slowMs = () => SLOW_MS * Math.max(1, os.loadavg()[0] / os.availableParallelism());
const BODY_LIMIT = 1024 * 1024;
const UNKNOWN_FIELD = 'fuzz_unknown_field';
const UNSUPPORTED = (type: string) => `Unsupported media type "${type}" in request; send application/json.`;

/** What an answer must never show: stack frames, file paths, SQL and driver errors. */
const INTERNALS: RegExp[] = [
  /\n\s*at \S+/, / at [^\s]+ \([^)]*:\d+:\d+\)/, /node_modules/, /SQLSTATE/i, /syntax error/i, /\bpg_/, /\/work\//,
  /\bdist\/\S+\.js/, /\bsrc\/\S+\.ts/, /\b(TypeError|RangeError|ReferenceError)\b/, /Maximum call stack/i,
  /duplicate key value/i, /violates \S+ constraint/i, /relation "[^"]*" does not exist/i, /invalid input syntax/i,
  /out of range for type/i, /unterminated/i, /\bdrizzle\b/i, /PGlite/i,
];

type Caller = 'admin' | 'member' | 'outsider' | 'anonymous' | 'disposable';

interface Planned {
  label: string;
  caller: Caller;
  op: Operation;
  request: RawRequest;
  /** Path values sent raw (not percent-encoded) or longer than the router's 500 characters. */
  oddPath: boolean;
  /** A sid of a record of the fuzzed organization that an outsider must not reach. */
  ownRecord: boolean;
  /** Extra check on the answer; returns a problem or null. */
  expect?: (answer: RawAnswer) => string | null;
}

interface Finding {
  planned: Planned;
  answer?: RawAnswer;
  problem: string;
}

const clip = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

function describeFinding({ planned, answer, problem }: Finding): string {
  const { request } = planned;
  const body = request.body === undefined ? '' : `\n    body (${Buffer.byteLength(request.body)} bytes${request.chunked ? ', chunked' : ''}): ${clip(String(request.body), 300)}`;
  const headers = Object.entries(request.headers).filter(([k]) => k !== 'token').map(([k, v]) => `${k}: ${clip(v, 80)}`).join('; ');
  const got = answer ? `\n    → ${answer.status} in ${answer.ms.toFixed(0)} ms: ${clip(answer.text, 300)}` : '';
  return `[${planned.label}] ${problem}\n    as ${planned.caller}: ${request.method} ${clip(request.path, 300)}\n    headers: ${headers}${body}${got}`;
}

/** The general rules every answer keeps; returns the problems found. */
function check(planned: Planned, answer: RawAnswer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  const slow = slowMs();
  if (answer.ms >= slow) problems.push(`slow: ${answer.ms.toFixed(0)} ms (over ${slow.toFixed(0)} ms at this load)`);
  const sent = `${planned.request.path}\n${planned.request.body ?? ''}`;
  for (const marker of INTERNALS) {
    if (marker.test(answer.text) && !marker.test(sent)) problems.push(`the answer shows internals (${marker})`);
  }
  // An odd path (a sid or level the route's pattern does not take: "..", "a/b") matches no
  // route: a JSON 404, or, for a navigation (Accept: text/html), the app's page, whose router
  // shows the screen (src/modules/web/routes.ts) and which holds no data.
  const appPage = answer.status === 200 && /^text\/html/.test(String(answer.headers['content-type'] ?? ''))
    && String(planned.request.headers?.accept ?? '').includes('text/html');
  if (planned.caller === 'anonymous' && planned.op.secured && answer.status !== 401 && !(planned.oddPath && ([400, 404, 414, 431].includes(answer.status) || appPage))) {
    problems.push(`no credential on a secured route: expected 401, got ${answer.status}`);
  }
  if (planned.caller === 'outsider' && planned.ownRecord && answer.status < 300) {
    problems.push(`the Admin of another organization reached one of ours (${answer.status})`);
  }
  const extra = planned.expect?.(answer);
  if (extra) problems.push(extra);
  return problems;
}

/** Runs the plan with a few requests in flight; returns the findings (answers kept for the slow ones). */
async function execute(plan: Planned[], baseUrl?: string): Promise<{ findings: Finding[]; statuses: Map<number, number> }> {
  const findings: Finding[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  let silent = 0;
  const worker = async () => {
    // A server that stops answering would make every later request wait for its timeout.
    while (next < plan.length && silent < 3) {
      const planned = plan[next++];
      if (process.env.FUZZ_LOG) fs.appendFileSync(process.env.FUZZ_LOG, `${JSON.stringify({ label: planned.label, caller: planned.caller, ...planned.request, body: String(planned.request.body ?? '').slice(0, 2000) })}\n`);
      let answer: RawAnswer;
      try {
        answer = await send(planned.request, baseUrl);
        silent = 0;
      } catch (err) {
        silent += 1;
        findings.push({ planned, problem: `no answer: ${(err as Error).message}${silent >= 3 ? ' (the server stopped answering: run stopped)' : ''}` });
        continue;
      }
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      for (const problem of check(planned, answer)) findings.push({ planned, answer, problem });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { findings, statuses };
}

/**
 * A slow answer on a busy 2-core machine may be another test's load (a commit waiting for
 * the disk behind another suite's files): each slow request is sent again alone, up to three
 * times a quarter second apart; it fails only when it is slow every time.
 */
async function confirmSlow(findings: Finding[]): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const finding of findings) {
    if (!finding.problem.startsWith('slow')) {
      out.push(finding);
      continue;
    }
    const times: string[] = [];
    let fast = false;
    for (let attempt = 0; attempt < 3 && !fast; attempt += 1) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, 250));
      const again = await send(finding.planned.request).catch(() => null);
      times.push(again ? `${again.ms.toFixed(0)} ms` : 'no answer');
      fast = again !== null && again.ms < slowMs();
    }
    if (!fast) out.push({ ...finding, problem: `${finding.problem}, and ${times.join(', ')} when sent again alone` });
  }
  return out;
}

function report(findings: Finding[], what: string): void {
  if (!findings.length) return;
  const shown = findings.slice(0, 25).map(describeFinding).join('\n');
  assert.fail(`${what}: ${findings.length} problem(s) (FUZZ_SEED=${SEED} replays the run):\n${shown}`);
}

describe(`fuzz every route of /openapi.json (seed ${SEED})`, () => {
  let ws: Workspace;
  let ops: Operation[];
  /** Valid sids by model (the path segment after the app: personnel, row …), of the fuzzed organization. */
  const own: Record<string, string[]> = {};
  /** Sids of another organization's records, by model. */
  const foreign: Record<string, string[]> = {};
  /** Sids anyone may read (built-in widgets). */
  const shared = new Set<string>();
  const tokens: Record<Exclude<Caller, 'disposable'>, string | null> = { admin: null, member: null, outsider: null, anonymous: null };
  const disposable: string[] = [];
  /** The instance's administrator (the harness names one): the strict-body checks of the /admin/ routes reach their validation as them. */
  let instanceAdminToken = '';

  before(async () => {
    console.log(`fuzz: seed ${SEED} (FUZZ_SEED=${SEED} replays it), ${PER_OPERATION} generated requests per operation`);
    ws = await newWorkspace({ label: 'fuzz', widgets: { paid: { price: '0.01' } }, columns: { text: 'builtinWidgetTxt', paid: 'paid' }, rows: 3 });
    const { admin, org } = ws;
    const api = admin.api;
    const ok = async (pending: ReturnType<Api['get']>, status: number, context: string) => expectStatus(await pending, status, context).json;
    // The Admin also holds the Project Admin role, so rows and cells are reachable too.
    const adminRole = await ok(api.post(recordPaths.memberList(ws.project.sid), { personnel: admin.personnel.sid, permission: 'admin' }), 201, 'admin project role');
    const theirs = await foreignRecords(ws);
    const [row0, row1] = ws.rows;
    const cells = [
      await createCell(ws.projectAdmin.api, org.sid, row0.sid, ws.columns.text.sid, 'hello'),
      await createCell(ws.projectAdmin.api, org.sid, row1.sid, ws.columns.paid.sid, 'paid'),
    ];
    const versions = await listVersions(api, org.sid, row0.sid);
    const list = (app: string, model: string, query?: Record<string, string>) =>
      `/${app}/${model}/list/organization/${org.sid}/detail/${query ? `?${new URLSearchParams(query)}` : ''}`;
    const workflows = [
      await ok(api.post(list('tables', 'workflow', { table__sid: ws.table.sid }), { name: 'Fuzz workflow', description: 'x' }), 201, 'workflow'),
      await ok(api.post(list('tables', 'workflow'), { name: 'Fuzz workflow 2' }), 201, 'workflow 2'),
    ];
    const steps = [
      await ok(api.post(list('tables', 'step'), { name: 'Wait', workflow: workflows[0].sid, widget: 'builtinWidgetWai', data: { event: 'approve' } }), 201, 'step'),
      await ok(api.post(list('tables', 'step'), { name: 'Lock', workflow: workflows[1].sid, widget: 'builtinWidgetLck', data: {} }), 201, 'step 2'),
    ];
    const triggered = await ok(api.patch(`/tables/workflow/detail/${workflows[0].sid}/?trigger__sid=${row0.sid}`, {}), 200, 'trigger');
    await ok(api.post(list('notifications', 'notification'), {
      to: [{ sid: admin.personnel.sid }, { sid: ws.member.personnel.sid }], name: 'Fuzz notice', body: 'hello',
    }), 201, 'notification');
    const notifications = assertPage(await api.get(`/notifications/notification/list/organization/${org.sid}/name/?page_size=100`)).results;
    const apikey = await ok(api.post(paths.apikeyList(admin.sid, 'detail'), { name: 'fuzz key' }), 201, 'api key');
    const ledger = assertPage(await api.get(recordPaths.creditList(org.sid, 'name'))).results;
    const memberships = assertPage(await api.get(recordPaths.memberList(ws.project.sid, 'name', { page_size: 100 }))).results;
    const files = await Promise.all(['a.txt', 'b.json'].map(async (name) => ok(upload(api, org.sid, name, 'fuzzed'), 201, 'file')));
    const teams = [await ok(api.post(list('organizations', 'team'), { name: 'Fuzz team', members: [ws.member.personnel.sid] }), 201, 'team')];
    const sections = [
      await ok(ws.projectAdmin.api.post(list('tables', 'section', { row__sid: row0.sid }), { name: 'Fuzz section', data: 'first' }), 201, 'section'),
      await ok(ws.projectAdmin.api.post(list('tables', 'section', { row__sid: row1.sid }), { name: 'Fuzz section 2', data: 'second' }), 201, 'section 2'),
    ];
    const filters = [
      await ok(api.post(list('tables', 'filter', { table__sid: ws.table.sid }), { name: 'Fuzz filter', query: 'is_archived=false' }), 201, 'saved filter'),
    ];

    Object.assign(own, {
      organization: [org.sid],
      user: [admin.sid],
      // The Admin's own personnel record and project role stay out: a fuzzed PATCH must
      // not lock the caller out of the rest of the run.
      personnel: [ws.member.personnel.sid, ws.projectEdit.personnel.sid, ws.projectView.personnel.sid],
      project: [ws.project.sid],
      member: memberships.map((m: any) => m.sid).filter((sid: string) => sid !== adminRole.sid),
      // The same memberships at the path of Labii's v3 docs.
      projectmember: memberships.map((m: any) => m.sid).filter((sid: string) => sid !== adminRole.sid),
      team: teams.map((t: any) => t.sid),
      section: sections.map((t: any) => t.sid),
      filter: filters.map((f: any) => f.sid),
      table: [ws.table.sid],
      widget: [ws.widgets.paid.sid],
      column: [ws.columns.text.sid, ws.columns.paid.sid],
      row: ws.rows.map((r) => r.sid),
      cell: cells.map((c) => c.sid),
      version: versions.map((v) => v.sid),
      credit: ledger.map((c: any) => c.sid),
      workflow: workflows.map((w) => w.sid),
      step: steps.map((s) => s.sid),
      execution: [triggered.execution.sid],
      notification: notifications.map((n: any) => n.sid),
      apikey: [apikey.sid],
      file: files.map((f: any) => f.sid),
      // The instance administrators' account detail: a member's account (nobody here administers the instance).
      account: [ws.member.sid],
    });
    for (const sid of ['builtinWidgetTxt', 'builtinWidgetNtf', 'builtinWidgetWai']) shared.add(sid);
    Object.assign(foreign, {
      organization: [ws.outsiderOrg.sid], user: [ws.outsider.sid], personnel: [ws.outsider.personnel.sid],
      project: [theirs.project.sid], table: [theirs.table.sid], column: [theirs.column.sid], row: [theirs.row.sid],
    });

    tokens.admin = admin.token;
    instanceAdminToken = expectStatus(await authenticate(INSTANCE_ADMIN.email, INSTANCE_ADMIN.password), 200, 'the instance administrator').json.token;
    tokens.member = ws.member.token;
    tokens.outsider = ws.outsider.token;
    // Logout ends the token it is sent with: those requests get tokens of their own.
    const spare = await newUser('fuzzspare');
    disposable.push(spare.token, ...(await Promise.all([1, 2, 3].map(() => login(spare)))));

    const doc = await anonymous.get(PATHS.openapi);
    expectStatus(doc, 200, 'GET /openapi.json');
    ops = operationsOf(doc.json);
  });

  after(() => closeConnections());

  // ------------------------------------------------------------ the plan --

  const allOwn = () => Object.values(own).flat();
  const allForeign = () => Object.values(foreign).flat();
  /** The model a path is about: /tables/row/detail/{sid}/ → row. */
  const modelOf = (op: Operation) => op.path.split('/')[2] ?? '';
  const isList = (op: Operation) => op.path.includes('/list/{level}/{sid}/');
  const isDetail = (op: Operation) => op.path.includes('/detail/{sid}/');

  /** A path sid for a record of `model`: real, another organization's, another model's, or hostile. */
  function pathSid(rng: Rng, model: string): { value: string; raw: boolean; ownRecord: boolean } {
    const r = rng.next();
    if (r < 0.5 && own[model]?.length) {
      const value = rng.pick(own[model]);
      return { value, raw: false, ownRecord: !shared.has(value) };
    }
    if (r < 0.6) return { value: rng.pick(foreign[model] ?? allForeign()), raw: false, ownRecord: false };
    if (r < 0.7) {
      const value = rng.chance(0.7) ? rng.pick(allOwn()) : rng.pick([...shared]);
      return { value, raw: false, ownRecord: false };
    }
    return hostileSegment(rng);
  }

  /** A path segment that is not a sid: malformed, huge, unicode, injection, traversal. */
  function hostileSegment(rng: Rng): { value: string; raw: boolean; ownRecord: boolean } {
    const encoded = [
      '', 'a', 'A'.repeat(16), '0'.repeat(16), 'a'.repeat(17), 'a'.repeat(64), 'a'.repeat(400), 'a'.repeat(501), 'a'.repeat(5_000),
      'not a sid', '\u0000', 'a\u0000b', ...UNICODE, ...INJECTIONS, ...NUMBER_STRINGS, '-1', '0', '1e308', '9007199254740993',
    ];
    const raw = [
      '..', '.', '../', '..%2F', '%2e%2e', '%2e%2e%2f', '%00', '%', '%ZZ', '%C0%AF', '%ED%A0%80', '%FF%FE', '%25', '%2F', '..;',
      'a;b=c', '*', '~', 'a'.repeat(20_000), '%u0000', '%E2%80%AE', '%F0%9F%98%80',
    ];
    if (rng.chance(0.6)) {
      const value = rng.pick(encoded);
      return { value: encodeURIComponent(value), raw: value.length > 500, ownRecord: false };
    }
    return { value: rng.pick(raw), raw: true, ownRecord: false };
  }

  /** The sids a query parameter or body field names, from its name: table__sid → table, workflow → workflow. */
  function modelOfName(name: string, description = ''): string | null {
    const base = name.replace(/__sid$/, '');
    if (base === 'trigger') return 'row';
    if (own[base]) return base;
    if (name === 'sid' || name.endsWith('__sid') || /\bsid\b/.test(description)) {
      return Object.keys(own).find((model) => description.includes(model)) ?? 'notification';
    }
    return null;
  }

  function queryValue(rng: Rng, name: string, schema: JsonSchema, description: string): string {
    const model = modelOfName(name, description);
    if (model) {
      const r = rng.next();
      if (r < 0.6 && own[model]?.length) return encodeURIComponent(rng.pick(own[model]));
      if (r < 0.7) return encodeURIComponent(rng.pick(foreign[model] ?? allForeign()));
      return hostileSegment(rng).value;
    }
    if (schema.type === 'integer' || schema.type === 'number') {
      if (rng.chance(0.6)) return String(rng.int(1, 3));
      return encodeURIComponent(String(rng.pick<unknown>([0, -1, 1e9, 1e9 + 1, 2 ** 31, '9007199254740993', '1e308', '1.5', 'abc', '', ...NUMBER_STRINGS])));
    }
    // Mostly a spelling the lists take (as integers are mostly in range), so the filters are reached, not only refused.
    if (schema.type === 'boolean') return rng.chance(0.6) ? rng.pick(['true', 'false', 'True', '0']) : rng.pick(['1', 'yes', 'maybe', '', 'TRUE', '%00']);
    if (name === 'event' && rng.chance(0.5)) return 'approve';
    // Half the time a plain value (a filter such as name_system is reached, not only refused).
    if (rng.chance(0.5)) return 'fuzz';
    return hostileSegment(rng).value;
  }

  function queryString(rng: Rng, op: Operation): string {
    const parts: string[] = [];
    for (const param of op.params.filter((p) => p.in === 'query')) {
      if (!rng.chance(0.6)) continue;
      parts.push(`${param.name}=${queryValue(rng, param.name, param.schema, (param as { description?: string }).description ?? '')}`);
      if (rng.chance(0.08)) parts.push(`${param.name}=${queryValue(rng, param.name, param.schema, '')}`); // repeated
    }
    // A parameter the operation does not take: a 400 naming it on every list (core/resource.ts), so rarer than the route's own.
    if (rng.chance(0.04)) parts.push(rng.pick(['unknown=1', 'search=x', 'page[]=1', 'page[a]=1', '__proto__=x', 'constructor[prototype]=1', 'ordering=-sid', `x=${'q'.repeat(6_000)}`]));
    if (rng.chance(0.04)) parts.push(rng.pick(['', '&&', '=', '%', '%ZZ=1', 'a=%ZZ', 'page', 'page=', '%00=1', ';']));
    return parts.length ? `?${parts.join('&')}` : '';
  }

  /** The path of `op` with generated path parameters (and sometimes a wrong serializer). */
  function buildPath(rng: Rng, op: Operation): { path: string; oddPath: boolean; ownRecord: boolean } {
    let oddPath = false;
    let ownRecord = false;
    let path = op.path;
    if (isList(op)) {
      const level = rng.chance(0.85) && op.levels.length ? { value: rng.pick(op.levels), raw: false, ownRecord: false } : hostileSegment(rng);
      const sid = op.levels.includes(level.value) ? pathSid(rng, level.value) : pathSid(rng, rng.pick(['organization', 'user', 'project']));
      oddPath ||= level.raw || sid.raw;
      ownRecord = sid.ownRecord;
      path = path.replace('{level}', level.value).replace('{sid}', sid.value);
      if (rng.chance(0.08)) {
        const serializer = rng.chance(0.5) ? { value: rng.pick(['full', 'DETAIL', 'names', 'list2', 'data']), raw: false, ownRecord: false } : hostileSegment(rng);
        oddPath ||= serializer.raw;
        path = path.replace(/\/(name|list|detail)\/$/, `/${serializer.value}/`);
      }
    } else if (path.includes('{sid}')) {
      const sid = pathSid(rng, modelOf(op));
      oddPath ||= sid.raw;
      ownRecord = sid.ownRecord;
      path = path.replace('{sid}', sid.value);
    }
    return { path, oddPath, ownRecord };
  }

  /** A generator whose sid fields hold real sids (mostly ours, sometimes another organization's). */
  function generator(rng: Rng): Generator {
    return new Generator(rng, (field, schema) => {
      const model = modelOfName(field, schema.description ?? '');
      if (!model) return null;
      if (rng.chance(0.12)) return rng.pick(foreign[model] ?? allForeign());
      return own[model]?.length ? rng.pick(own[model]) : rng.pick(allOwn());
    }, () => uniqueEmail('fuzzbody'));
  }

  /** Replaces one field somewhere in `value` (a generated body) with `replacement`. */
  function mutateField(rng: Rng, value: unknown, replacement: () => unknown): unknown {
    if (Array.isArray(value) && value.length) {
      const copy = [...value];
      const i = rng.int(0, copy.length - 1);
      copy[i] = rng.chance(0.7) ? mutateField(rng, copy[i], replacement) : replacement();
      return copy;
    }
    if (value && typeof value === 'object') {
      const keys = Object.keys(value);
      const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      if (!keys.length) return replacement();
      const key = rng.pick(keys);
      copy[key] = rng.chance(0.25) && copy[key] && typeof copy[key] === 'object' ? mutateField(rng, copy[key], replacement) : replacement();
      return copy;
    }
    return replacement();
  }

  /** The sub-schema of a body's property (through anyOf), for the limits of a hostile value. */
  function propertySchema(schema: JsonSchema | undefined): Record<string, JsonSchema> {
    if (!schema) return {};
    const object = schema.type === 'object' ? schema : (schema.anyOf ?? []).find((b) => b.type === 'object');
    return object?.properties ?? {};
  }

  let authAttempts = 0;

  /** A generated body (and its media type) for `op`. */
  function buildBody(rng: Rng, op: Operation): { body?: string; contentType?: string; chunked?: boolean } {
    const gen = generator(rng);
    const holder = new Body();
    if (!op.body) {
      // Bodies where none is taken must not confuse a route either.
      if (!rng.chance(0.08)) return {};
      return rng.pick([
        { body: '{"a":1}', contentType: 'application/json' }, { body: 'x', contentType: 'text/plain' }, { body: '{', contentType: 'application/json' },
      ]);
    }
    const r = rng.next();
    let value: unknown;
    if (r < 0.3) {
      value = gen.valid(op.body);
    } else if (r < 0.72) {
      value = gen.valid(op.body);
      const props = propertySchema(op.body);
      for (let i = rng.int(1, 2); i > 0; i -= 1) {
        value = mutateField(rng, value, () => gen.hostile(props[rng.pick(Object.keys(props).concat(''))], holder));
      }
    } else if (r < 0.8) {
      value = gen.valid(op.body);
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        const copy = { ...(value as Record<string, unknown>) };
        if (rng.chance(0.5) && Object.keys(copy).length) delete copy[rng.pick(Object.keys(copy))];
        else copy[rng.pick([UNKNOWN_FIELD, 'sid', 'id', 'organization', 'is_builtin', 'credits', '__proto__', 'constructor', '', '\u0000'])] = rng.pick(['x', 1, { a: 1 }]);
        value = copy;
      }
    } else if (r < 0.9) {
      value = gen.hostile(op.body, holder);
    } else {
      const weird: Array<{ body?: string; contentType?: string; chunked?: boolean }> = [
        { body: '', contentType: 'application/json' },
        { body: '{"name": ', contentType: 'application/json' },
        { body: "{'name': 'x'}", contentType: 'application/json' },
        { body: '{"a":1}{"b":2}', contentType: 'application/json' },
        { body: '{"__proto__": {"polluted": 1}}', contentType: 'application/json' },
        { body: '{"constructor": {"prototype": {"polluted": 1}}}', contentType: 'application/json' },
        { body: '\uFEFF{}', contentType: 'application/json' },
        { body: '{"name": "a", "name": "b"}', contentType: 'application/json' },
        { body: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]).toString('latin1'), contentType: 'application/json' },
        { body: JSON.stringify({ name: 'x' }), contentType: rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/xml', 'application/json-patch+json', '*/*', 'application/json; charset=latin1', 'APPLICATION/JSON', 'application/jsonx', ';;;', 'a'.repeat(2000)]) },
        { body: 'name=x&description=y', contentType: 'application/x-www-form-urlencoded' },
        { body: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) }), contentType: 'application/json', chunked: rng.chance(0.5) },
        { body: `[${'0,'.repeat(200_000)}0]`, contentType: 'application/json' },
      ];
      return rng.pick(weird);
    }
    // Sign-in failures count against the test machine's address (50 per 15 minutes for
    // every test file): beyond a few, an unknown field keeps them from reaching the check.
    if (op.path.includes('/auth/') && value && typeof value === 'object' && !Array.isArray(value)) {
      authAttempts += 1;
      if (authAttempts > 3) value = { ...(value as object), [UNKNOWN_FIELD]: 1 };
    }
    return { body: holder.text(value), contentType: rng.chance(0.1) ? 'application/json; charset=utf-8' : 'application/json' };
  }

  function pickCaller(rng: Rng, op: Operation): Caller {
    const r = rng.next();
    const caller: Caller = r < 0.75 ? 'admin' : r < 0.83 ? 'member' : r < 0.92 ? 'outsider' : 'anonymous';
    // Signing out ends the caller's session (sign out everywhere and a password change, all
    // of the account's, or the others): a disposable one, of a spare account.
    const signsOut = op.path.includes('/logout/') || op.path.includes('/logoutall/') || op.path.includes('/changepassword/')
      || (op.path === '/accounts/session/' && op.method === 'DELETE');
    return caller !== 'anonymous' && signsOut ? 'disposable' : caller;
  }

  /** The caller's credential, sometimes sent another way, sometimes broken (then the caller is in effect anonymous). */
  function credentialHeaders(rng: Rng, caller: Caller): { headers: Record<string, string>; broken: boolean } {
    const token = caller === 'disposable' ? disposable.pop() ?? 'spent' : tokens[caller];
    const r = rng.next();
    if (!token) return { headers: {}, broken: false };
    if (r < 0.85) return { headers: { token }, broken: false };
    if (r < 0.9) return { headers: { authorization: `Token ${token}` }, broken: false };
    if (r < 0.93) return { headers: { authorization: `Bearer ${token}` }, broken: false };
    const headers = rng.pick<Record<string, string>>([{ token: 'x'.repeat(5000) }, { token: `${token}\u00e9` }, { authorization: 'Token' }, { authorization: 'Basic Zm9vOmJhcg==' }, { token: '' }]);
    return { headers, broken: true };
  }

  function extraHeaders(rng: Rng, op: Operation): Record<string, string> {
    const headers: Record<string, string> = {};
    if (op.method === 'POST' && rng.chance(0.05)) headers['idempotency-key'] = rng.pick(['fuzz-1', 'fuzz-2', 'k'.repeat(300), 'cl\u00e9', ' ', '*']);
    if (op.method === 'PATCH' && rng.chance(0.08)) headers['if-match'] = rng.pick(['*', '"abc"', 'W/"x"', '', 'x'.repeat(2000), '"a", "b"', ',,,']);
    if (rng.chance(0.03)) headers.accept = rng.pick(['text/html', 'application/xml', '*/*', 'x'.repeat(1000)]);
    return headers;
  }

  function plan(rng: Rng): Planned[] {
    const out: Planned[] = [];
    for (const op of ops) {
      for (let i = 0; i < PER_OPERATION; i += 1) {
        const caller = pickCaller(rng, op);
        const { path, oddPath, ownRecord } = buildPath(rng, op);
        const query = queryString(rng, op);
        const { body, contentType, chunked } = buildBody(rng, op);
        const credential = credentialHeaders(rng, caller);
        const headers = { ...credential.headers, ...extraHeaders(rng, op) };
        if (contentType) headers['content-type'] = contentType;
        out.push({
          label: `${op.method} ${op.path} #${i}`,
          caller: credential.broken ? 'anonymous' : caller,
          op,
          request: { method: op.method, path: `${path}${query}`, headers, body, chunked },
          oddPath: oddPath || query.length > 6_000,
          ownRecord,
        });
      }
    }
    // Shuffle so writes, deletes and reads of one route interleave with the others.
    for (let i = out.length - 1; i > 0; i -= 1) {
      const j = rng.int(0, i);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  // ----------------------------------------------------------- the tests --

  test('/openapi.json lists every route, and every detail route has a real record to aim at', () => {
    assert.ok(ops.length >= 100, `at least 100 operations in /openapi.json, got ${ops.length}`);
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) assert.ok(ops.some((op) => op.method === method), `some ${method} operation`);
    assert.ok(ops.filter((op) => op.body).length >= 30, 'at least 30 operations take a body');
    const missing = [...new Set(ops.filter(isDetail).map(modelOf))].filter((model) => !own[model]?.length);
    assert.deepEqual(missing, [], 'every detail route has a real sid in the fuzz setup (add records of new resources to before())');
    const unknownLevels = ops.filter(isList).flatMap((op) => op.levels).filter((level) => !own[level]?.length);
    assert.deepEqual([...new Set(unknownLevels)], [], 'every level has a real sid');
    assert.ok(ops.filter(isList).every((op) => op.levels.length), 'every list names its levels');
  });

  /** A request as the Admin on the real record (or list) of `op`, with its sid filters filled in. */
  function validRequest(op: Operation, body: string | undefined, contentType: string | undefined, label: string, expect: Planned['expect'], chunked = false): Planned {
    let path = op.path;
    if (isList(op)) path = path.replace('{level}', op.levels[0]).replace('{sid}', own[op.levels[0]][0]);
    else path = path.replace('{sid}', own[modelOf(op)]?.[0] ?? 'none');
    const query = op.params.filter((p) => p.in === 'query' && modelOfName(p.name)).map((p) => `${p.name}=${own[modelOfName(p.name)!]?.[0] ?? 'x'}`);
    if (op.params.some((p) => p.in === 'query' && p.name === 'tag')) query.push('tag=fuzz-tag');
    // The /admin/ routes refuse anyone else before reading a body (a list POST) or after it: their bodies are checked as the instance's administrator.
    const headers: Record<string, string> = { token: op.path.startsWith('/admin/') ? instanceAdminToken : tokens.admin! };
    if (contentType) headers['content-type'] = contentType;
    return {
      label: `${label}: ${op.method} ${op.path}`, caller: 'admin', op, oddPath: false, ownRecord: false, expect,
      request: { method: op.method, path: `${path}${query.length ? `?${query.join('&')}` : ''}`, headers, body, chunked },
    };
  }

  test('strict bodies on every body route: unknown field 400, JSON only (415), bad or empty JSON 400, over the limit 413', async () => {
    const rng = new Rng(SEED ^ 0x5bd1e995);
    const withBody = ops.filter((op) => op.body);
    const planned: Planned[] = [];
    const detailIs = (status: number, detail: string) => (a: RawAnswer) => {
      if (a.status !== status) return `expected ${status} ${JSON.stringify(detail)}`;
      try {
        return JSON.parse(a.text).detail === detail ? null : `expected the detail ${JSON.stringify(detail)}`;
      } catch {
        return 'expected a JSON body';
      }
    };
    const limitChecked = new Set<string>();
    for (const op of withBody) {
      const gen = generator(rng);
      const object = op.body!.type === 'object' ? op.body! : (op.body!.anyOf ?? []).find((b) => b.type === 'object')!;
      const valid = { ...(gen.valid(object) as object), [UNKNOWN_FIELD]: 'x' };
      planned.push(validRequest(op, JSON.stringify(valid), rng.pick(['application/json', 'application/json; charset=utf-8']), 'unknown field', (a) => {
        if (a.status !== 400) return 'an unknown body field: expected 400';
        try {
          const messages = JSON.parse(a.text)[UNKNOWN_FIELD];
          return Array.isArray(messages) && messages.includes('Unknown field.') ? null : `expected {"${UNKNOWN_FIELD}": ["Unknown field."]}`;
        } catch {
          return 'expected JSON field errors';
        }
      }));
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/xml']) {
        planned.push(validRequest(op, type.startsWith('application/x-www') ? 'name=x' : JSON.stringify({ name: 'x' }), type, `media type ${type}`,
          detailIs(415, UNSUPPORTED(type))));
      }
      planned.push(validRequest(op, '{"name": ', 'application/json', 'malformed JSON', detailIs(400, MESSAGES.notJson)));
      // (A workflow trigger needs no body: the empty body is tested on the PATCH without ?trigger__sid=.)
      const empty = validRequest(op, '', 'application/json', 'empty body', detailIs(400, 'The request body is empty; send a JSON object.'));
      empty.request.path = empty.request.path.replace(/[?&]trigger__sid=[^&]*/, '').replace(/\/&/, '/?');
      planned.push(empty);
      // The limit is checked once per route (not per serializer): each costs a 1 MiB upload.
      const route = `${op.method} ${op.path.replace(/\/(name|list|detail)\/$/, '/')}`;
      if (!limitChecked.has(route)) {
        limitChecked.add(route);
        const huge = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) });
        planned.push(validRequest(op, huge, 'application/json', 'over the body limit', detailIs(413, 'Request body is too large.')));
        planned.push(validRequest(op, huge, 'application/json', 'over the body limit, chunked', detailIs(413, 'Request body is too large.'), true));
      }
    }
    const { findings } = await execute(planned);
    report(await confirmSlow(findings), 'strict bodies');
  });

  test(`generated requests on every route (${PER_OPERATION} per operation): no 5xx, under a second, no internals`, async (t) => {
    const rng = new Rng(SEED);
    const requests = plan(rng);
    const started = Date.now();
    const { findings, statuses } = await execute(requests);
    const seconds = (Date.now() - started) / 1000;
    t.diagnostic(`seed ${SEED}: ${requests.length} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    report(await confirmSlow(findings), `fuzz with seed ${SEED}`);
    // Not vacuous: the routes were reached, not only refused.
    // (Any 2xx: a create or a delete reached its route as much as a read. About one in ten
    // succeeds; one in twenty is the floor, so a seed that draws more refusals is no failure.)
    const succeeded = [...statuses].filter(([status]) => status >= 200 && status < 300).reduce((sum, [, n]) => sum + n, 0);
    assert.ok(succeeded > requests.length / 20, `many requests succeed: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok((statuses.get(201) ?? 0) > 10, 'some creations succeed');
    assert.ok((statuses.get(400) ?? 0) > requests.length / 10, 'many requests are refused as bad input');
  });

  test('afterwards: /health/ answers 200 and an authenticated request still works', async () => {
    const health = await anonymous.get('/health/');
    expectStatus(health, 200, 'health after the fuzz');
    assert.deepEqual(health.json, { status: 'ok' });
    const organization = expectStatus(await ws.admin.api.get(recordPaths.organizationDetail(ws.org.sid)), 200, 'the Admin reads the organization').json;
    assert.equal(organization.sid, ws.org.sid);
    expectStatus(await ws.admin.api.post(recordPaths.tableList(ws.org.sid), { name: `After fuzz ${unique('t')}` }), 201, 'the Admin still creates a table');
    // (Only the Admin: the fuzz may have archived any other member, as it is entitled to.)
    assertPage(await ws.admin.api.get(paths.personnelList(ws.org.sid, 'name')), undefined, 'the Admin still lists the personnel');
  });
});
