// The OpenAPI document (issue 13, point 2): the checked-in openapi.json is the served one;
// it is valid (swagger-parser, Redocly's lint); every operation is named; the media types,
// headers, levels, required parameters and answers it declares are what the service does;
// its request body examples pass validation; real answers match its schemas.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { anonymous } from '../helpers/http.ts';
import { MESSAGES, expectStatus } from '../helpers/assertions.ts';
import { PROJECT_ROOT } from '../helpers/env.ts';
import { PATHS } from '../helpers/factories.ts';
import { createCell, newWorkspace, recordPaths, type Workspace } from '../helpers/records.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
let served: any;
let resolved: any;

before(async () => {
  const res = await anonymous.get(PATHS.openapi);
  expectStatus(res, 200);
  served = res.json;
  resolved = await SwaggerParser.dereference(structuredClone(served));
});

function* operations(doc: any): Generator<{ path: string; method: string; op: any }> {
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) if (item[method]) yield { path: p, method, op: item[method] };
  }
}

/** Every object in `value` with where it is (a JSON pointer). */
function* nodes(value: unknown, where = '#'): Generator<{ node: any; where: string }> {
  if (!value || typeof value !== 'object') return;
  if (!Array.isArray(value)) yield { node: value, where };
  for (const [key, child] of Object.entries(value)) yield* nodes(child, `${where}/${key}`);
}

const pascal = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

/** A validator configured like the service's (strict bodies: no coercion), reading OpenAPI 3.0 schemas. */
function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false });
  addFormats.default(ajv);
  return ajv;
}

/**
 * A validator of the schema at the path `parts` of the served document, its $refs
 * resolved there (JsonValue refers to itself: a dereferenced copy is circular).
 */
function validatorAt(...parts: string[]) {
  const ajv = validator();
  ajv.addSchema(served, 'openapi.json');
  const fragment = parts.map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  return { ajv, validate: ajv.compile({ $ref: `openapi.json#/${fragment}` }) };
}

describe('the OpenAPI document', () => {
  test('the checked-in openapi.json is the document the service serves (`npm run openapi` writes it)', () => {
    const checkedIn = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'openapi.json'), 'utf8'));
    assert.deepEqual(served, checkedIn, 'openapi.json drifted from /openapi.json: run `npm run openapi` and commit it');
  });

  test('swagger-parser validates it', async () => {
    await SwaggerParser.validate(structuredClone(served));
  });

  test("Redocly's lint passes (its recommended rules; trailing slashes allowed, the spec's paths have them)", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'records-openapi-')), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(served));
    try {
      const cli = path.join(PROJECT_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
      const run = spawnSync(process.execPath, [cli, 'lint', '--config', path.join(PROJECT_ROOT, 'redocly.yaml'), file], {
        encoding: 'utf8', timeout: 120_000, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
      const output = `${run.stdout}\n${run.stderr}`;
      assert.equal(run.status, 0, output.slice(-3000));
      assert.match(output, /Your API description is valid/);
      assert.doesNotMatch(output, /\berror\b.*:/i);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  test('every operation has a unique camelCase operationId; shapes are named components; the document is compact', () => {
    const ids = [...operations(served)].map(({ op }) => op.operationId);
    assert.ok(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id)), JSON.stringify(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id ?? ''))));
    assert.equal(new Set(ids).size, ids.length, 'unique');
    const named = (p: string, m: string) => served.paths[p][m].operationId;
    assert.equal(named('/tables/row/list/{level}/{sid}/detail/', 'get'), 'listRowsDetail');
    assert.equal(named('/tables/row/list/{level}/{sid}/detail/', 'post'), 'createRowDetail');
    assert.equal(named('/tables/row/detail/{sid}/', 'patch'), 'updateRow');
    assert.equal(named('/organizations/personnel/list/{level}/{sid}/name/', 'get'), 'listPersonnelName');
    assert.equal(named('/accounts/auth/', 'post'), 'signIn');
    assert.equal(named('/tables/row/list/table/{sid}/grid/', 'get'), 'listRowsGrid');
    for (const name of ['RowDetail', 'RowDetailPage', 'RowCreate', 'RowUpdate', 'CellDetail', 'PersonnelDetail', 'Ref', 'Error', 'FieldErrors']) {
      assert.ok(served.components.schemas[name], `components.schemas.${name}`);
    }
    const rowPage = served.paths['/tables/row/list/{level}/{sid}/detail/'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual(rowPage, { $ref: '#/components/schemas/RowDetailPage' });
    // Compact per operation (shared shapes are referenced, not inlined): the document
    // grows with the API, about 2,000 characters an operation today.
    const size = JSON.stringify(served).length;
    const operationCount: number = Object.values(served.paths as Record<string, Record<string, unknown>>)
      .flatMap((item) => Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete', 'head'].includes(m))).length;
    assert.ok(size / operationCount < 2_500, `${size} characters for ${operationCount} operations`);
  });

  test('names say what they are (issue 22): no operationId made of the method and the path, no numbered or generator-clashing component', () => {
    for (const { path: p, method, op } of operations(served)) {
      assert.notEqual(op.operationId, `${method}${pascal(p)}`, `${method} ${p}: name it (SPECIAL_IDS in core/openapi.ts or config.operationId)`);
    }
    const named = (p: string, m: string) => served.paths[p][m].operationId;
    assert.equal(named('/accounts/verifyemail/', 'post'), 'verifyEmail');
    assert.equal(named('/accounts/verifyemail/resend/', 'post'), 'resendEmailProof');
    assert.equal(named('/notifications/notification/stream/', 'get'), 'streamNotifications');
    assert.equal(named('/tables/cell/detail/{sid}/', 'get'), 'getCell');
    for (const kind of ['schemas', 'responses', 'parameters']) {
      for (const name of Object.keys(served.components[kind])) {
        assert.match(name, /^[A-Z][A-Za-z]*[A-Za-z]$/, `components.${kind}.${name}: a name, not a number`);
        // Generators name each operation's types {Operation}Response(s)/Data/Error(s): a component so named is renamed `…2`.
        assert.doesNotMatch(name, /(Response|Responses)$/, `components.${kind}.${name}`);
      }
    }
    assert.deepEqual(Object.keys(served.components.responses.NotAcceptable.content), ['text/plain'], "the spec's 406");
    assert.deepEqual(Object.keys(served.components.responses.NotAcceptableJson.content), ['application/json'], "the sign-in's 406");
    for (const name of ['PathRecordSid', 'PathLevelSid', 'QueryPage', 'QueryPageSize', 'HeaderIfMatch', 'HeaderIdempotencyKey']) {
      assert.ok(served.components.parameters[name], `components.parameters.${name}`);
    }
    for (const name of ['Message', 'User', 'Session', 'Empty', 'ApiKeyCreated', 'PersonnelCreated', 'GridRowPage', 'ChainReport', 'RowDataPage', 'VersionWithCommit']) {
      assert.ok(served.components.schemas[name], `components.schemas.${name}`);
    }
  });

  test('booleans are booleans (issue 22): no schema is a string enum of boolean spellings, though the service still takes them (real-clients.test.ts)', () => {
    const spellings = new Set(['true', 'false', 'True', 'False', 'TRUE', 'FALSE', '1', '0']);
    const enums = [...nodes(served)].filter(({ node }) => Array.isArray(node.enum) && node.enum.length > 0
      && node.enum.every((v: unknown) => typeof v === 'string' && spellings.has(v)));
    assert.deepEqual(enums.map(({ where }) => where), [], 'string enums of boolean spellings');
    const query = (p: string, name: string) => resolved.paths[p].get.parameters.find((x: any) => x.name === name).schema;
    assert.equal(query('/tables/version/list/{level}/{sid}/detail/', 'dataonly').type, 'boolean');
    assert.equal(query('/notifications/notification/list/{level}/{sid}/list/', 'is_read').type, 'boolean');
    const personnel = resolved.components.schemas.PersonnelUpdate.properties;
    for (const flag of ['is_administrator', 'is_archived', 'should_receive_weekly_digest']) assert.equal(personnel[flag].type, 'boolean', flag);
    assert.equal(JSON.stringify(served).includes('x-document'), false, 'the markers are gone');
  });

  test('closed shapes (issue 22): nothing is an open object of anything; the versions list is a page of versions or a page of row data', () => {
    const open = [...nodes(served)].filter(({ node, where }) => !where.includes('/headers/')
      && (node.additionalProperties === true || (node.additionalProperties && Object.keys(node.additionalProperties).length === 0)
        || (node.type === 'array' && node.items && Object.keys(node.items).length === 0)));
    assert.deepEqual(open.map(({ where }) => where), [], 'schemas of any content (JsonValue names any JSON value)');
    for (const serializer of ['name', 'list', 'detail']) {
      const answer = served.paths[`/tables/version/list/{level}/{sid}/${serializer}/`].get.responses['200'].content['application/json'].schema;
      const page = `Version${serializer.charAt(0).toUpperCase()}${serializer.slice(1)}Page`;
      assert.deepEqual(answer, { anyOf: [{ $ref: `#/components/schemas/${page}` }, { $ref: '#/components/schemas/RowDataPage' }] }, serializer);
    }
    assert.deepEqual(served.components.schemas.Version.properties.data, { $ref: '#/components/schemas/RowData' });
    assert.deepEqual(served.components.schemas.PersonnelDetail.properties.metadata.items, { $ref: '#/components/schemas/JsonValue' });
  });

  test("406: text/plain where the service sends text (the spec's 406s), JSON where it sends JSON (bad credentials)", async () => {
    const media = (op: any) => Object.keys(resolved.paths[op.path][op.method].responses['406']?.content ?? {});
    for (const op of operations(resolved)) {
      if (!op.op.responses['406']) continue;
      const expected = ['/accounts/auth/', '/accounts/session/'].includes(op.path) ? ['application/json'] : ['text/plain'];
      assert.deepEqual(media(op), expected, `${op.method} ${op.path}`);
    }
    // What the service sends.
    const wrongLevel = await anonymous.get('/tables/row/list/project/AAAAAAAAAAAAAAAA/detail/', { token: 'x' });
    assert.equal(wrongLevel.status, 401, 'authentication comes first');
    const ws = await newWorkspace({ label: 'oas', rows: 0, allRoles: false });
    const plain = await ws.admin.api.get('/tables/row/list/project/AAAAAAAAAAAAAAAA/detail/');
    assert.equal(plain.status, 406);
    assert.match(plain.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(plain.text, MESSAGES.wrongLevel);
    const json = await anonymous.post(PATHS.auth, { username: 'nobody@example.org', password: 'not-the-password' });
    assert.equal(json.status, 406);
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
  });

  test('headers: Idempotency-Key on secured POSTs, If-Match on PATCHes that answer 412, ETag on detail answers, Retry-After on 429 and 503', () => {
    for (const { path: p, method, op } of operations(resolved)) {
      const headers = (op.parameters ?? []).filter((x: any) => x.in === 'header').map((x: any) => x.name);
      const secured = !(Array.isArray(op.security) && op.security.length === 0);
      assert.equal(headers.includes('Idempotency-Key'), method === 'post' && secured, `${method} ${p}: Idempotency-Key`);
      assert.equal(headers.includes('If-Match'), method === 'patch' && !!op.responses['412'], `${method} ${p}: If-Match`);
      if (/\/detail\/\{sid\}\/$/.test(p) && (method === 'get' || method === 'patch')) assert.ok(op.responses['200'].headers?.ETag, `${method} ${p}: ETag`);
      // The health checks' own 503 ({"status": "unavailable", …}) names no wait.
      for (const status of p.startsWith('/health/') ? ['429'] : ['429', '503']) {
        if (op.responses[status]) assert.ok(op.responses[status].headers?.['Retry-After'], `${method} ${p}: ${status} Retry-After`);
      }
      assert.ok(op.responses['503'], `${method} ${p}: 503`);
      if (op.requestBody) {
        for (const status of ['400', '413', '415']) assert.ok(op.responses[status], `${method} ${p}: ${status}`);
      }
    }
    for (const p of ['/accounts/auth/', '/accounts/session/']) assert.ok(resolved.paths[p].post.responses['429'], `${p}: 429`);
    for (const serializer of ['name', 'list', 'detail']) {
      assert.ok(resolved.paths[`/tables/cell/list/{level}/{sid}/${serializer}/`].post.responses['201'].headers?.ETag, `cell POST (${serializer}): ETag`);
    }
    assert.ok(resolved.paths['/accounts/session/'].post.responses['200'].headers['Set-Cookie']);
    assert.ok(resolved.components.securitySchemes.session, 'the session cookie is a security scheme');
  });

  test("level: each list's own levels; required query parameters are required", () => {
    for (const { path: p, op } of operations(resolved)) {
      const level = (op.parameters ?? []).find((x: any) => x.name === 'level');
      if (level) assert.ok(Array.isArray(level.schema.enum) && level.schema.enum.length > 0, `${p}: level values`);
    }
    const levels = (p: string, m = 'get') => resolved.paths[p][m].parameters.find((x: any) => x.name === 'level').schema.enum;
    assert.deepEqual(levels('/tables/row/list/{level}/{sid}/detail/'), ['organization']);
    assert.deepEqual(levels('/projects/member/list/{level}/{sid}/detail/'), ['project', 'organization']);
    const required = (p: string, name: string) => resolved.paths[p].post.parameters.find((x: any) => x.name === name)?.required;
    for (const serializer of ['name', 'list', 'detail']) {
      assert.equal(required(`/tables/row/list/{level}/{sid}/${serializer}/`, 'table__sid'), true);
      assert.equal(required(`/tables/row/list/{level}/{sid}/${serializer}/`, 'project__sid'), true);
      assert.equal(required(`/tables/column/list/{level}/{sid}/${serializer}/`, 'table__sid'), true);
      assert.equal(required(`/tables/cell/list/{level}/{sid}/${serializer}/`, 'row__sid'), true);
    }
  });

  test('every request body has an example, and it passes the body schema (what "Try it out" sends)', () => {
    for (const { path: p, method, op } of operations(served)) {
      const media = op.requestBody?.content?.['application/json'];
      if (!media) continue;
      assert.notEqual(media.example, undefined, `${method} ${p}: an example`);
      const { ajv, validate } = validatorAt('paths', p, method, 'requestBody', 'content', 'application/json', 'schema');
      assert.ok(validate(structuredClone(media.example)), `${method} ${p}: ${JSON.stringify(media.example)} → ${ajv.errorsText(validate.errors)}`);
    }
    const personnel = served.paths['/organizations/personnel/list/{level}/{sid}/detail/'].post.requestBody.content['application/json'].example;
    assert.notEqual(personnel.date_end, 'string');
  });
});

describe('real answers match the documented schemas', () => {
  let ws: Workspace;
  let cell: any;
  before(async () => {
    ws = await newWorkspace({ label: 'oasreal', rows: 2, allRoles: false });
    cell = await createCell(ws.projectAdmin.api, ws.org.sid, ws.rows[0].sid, ws.columns.text.sid, 'documented');
  });

  /** The answer's body passes the documented schema of `status` for the operation. */
  function conforms(p: string, method: string, status: string, body: unknown) {
    const { ajv, validate } = validatorAt('paths', p, method, 'responses', status, 'content', 'application/json', 'schema');
    assert.ok(validate(body), `${method} ${p} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
  }

  test('the grid, the row list and detail, the cell list and detail, a version, the session', async () => {
    const grid = await ws.projectAdmin.api.get(`/tables/row/list/table/${ws.table.sid}/grid/?project__sid=${ws.project.sid}`);
    expectStatus(grid, 200);
    conforms('/tables/row/list/table/{sid}/grid/', 'get', '200', grid.json);
    for (const serializer of ['name', 'list', 'detail']) {
      const list = await ws.projectAdmin.api.get(recordPaths.rowList(ws.org.sid, serializer));
      conforms(`/tables/row/list/{level}/{sid}/${serializer}/`, 'get', '200', expectStatus(list, 200).json);
    }
    conforms('/tables/row/detail/{sid}/', 'get', '200', expectStatus(await ws.projectAdmin.api.get(recordPaths.rowDetail(ws.rows[0].sid)), 200).json);
    const cells = await ws.projectAdmin.api.get(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: ws.rows[0].sid }));
    conforms('/tables/cell/list/{level}/{sid}/detail/', 'get', '200', expectStatus(cells, 200).json);
    conforms('/tables/cell/detail/{sid}/', 'get', '200', expectStatus(await ws.projectAdmin.api.get(recordPaths.cellDetail(cell.sid)), 200).json);
    conforms('/tables/version/detail/{sid}/', 'get', '200', expectStatus(await ws.projectAdmin.api.get(recordPaths.versionDetail(
      (await ws.projectAdmin.api.get(recordPaths.versionList(ws.org.sid, 'name', { row__sid: ws.rows[0].sid }))).json.results[0].sid)), 200).json);
    conforms('/accounts/session/', 'get', '200', expectStatus(await ws.admin.api.get('/accounts/session/'), 200).json);
  });

  test('the versions list with dataonly=true: bare data objects, as documented', async () => {
    for (const serializer of ['list', 'detail']) {
      const res = await ws.projectAdmin.api.get(recordPaths.versionList(ws.org.sid, serializer, { row__sid: ws.rows[0].sid, dataonly: 'true' }));
      expectStatus(res, 200);
      assert.ok(res.json.results.length > 0);
      assert.deepEqual(Object.keys(res.json.results[0]).sort(), ['cells', 'description', 'is_archived', 'is_locked', 'name']);
      conforms(`/tables/version/list/{level}/{sid}/${serializer}/`, 'get', '200', res.json);
      const full = await ws.projectAdmin.api.get(recordPaths.versionList(ws.org.sid, serializer, { row__sid: ws.rows[0].sid }));
      conforms(`/tables/version/list/{level}/{sid}/${serializer}/`, 'get', '200', expectStatus(full, 200).json);
    }
  });
});
