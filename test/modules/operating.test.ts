// What an operator sees (issue 16): GET /metrics behind METRICS_TOKEN, a request id in
// every answer and in every log line of its request (across two processes on
// PostgreSQL), the start-up line and the warning for a mistyped setting, and the
// liveness and readiness checks.
//
// This file starts a server of its own with METRICS_TOKEN and LOG_LEVEL=info: on
// PostgreSQL two worker processes on the run's database and DATA_DIR (so records made
// through the run's server can be written through it, and the mail its workers deliver
// lands where the run's tests read it), on PGlite a fresh data folder with an SMTP_URL
// whose password must never be logged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DATA_DIR, DB_KIND, TEST_DATABASE_URL } from '../helpers/env.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { anonymous } from '../helpers/http.ts';
import { newWorkspace } from '../helpers/records.ts';
import pg from 'pg';
import { scratchDatabase } from '../helpers/scratch-db.ts';
import { spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../helpers/env.ts';
import { cleanEnv } from '../helpers/server.ts';
import { strongPassword, uniqueEmail } from '../helpers/factories.ts';

const TOKEN = 'metrics-token-0123456789abcdef';
const SMTP_PASSWORD = 'smtp-pass-never-logged';
const DB_PASSWORD = 'db-pass-never-logged';
let server: RunningServer;
let dataDir = '';
/** An account made with the operator CLI on this file's server's database. */
const account = { email: uniqueEmail('operator'), password: strongPassword() };

/** Runs the CLI's create-user for `account` on the database at `databaseUrl` or in `dir`. */
function createAccount(databaseUrl: string | null, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const env = { ...cleanEnv(), ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dir }) };
    const child = spawn(process.execPath, ['dist/cli.js', 'create-user', '--email', account.email], { cwd: PROJECT_ROOT, env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdin.end(`${account.password}\n`);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`create-user exited ${code}: ${stderr}`))));
  });
}

/** The run's database URL with a password in it (trust authentication ignores it). */
function urlWithPassword(): string {
  const url = new URL(TEST_DATABASE_URL!);
  url.password = DB_PASSWORD;
  return url.toString();
}

before(async () => {
  const env = {
    METRICS_TOKEN: TOKEN,
    LOG_LEVEL: 'info',
    DATABSE_URL: 'postgres://typo@127.0.0.1/none',
    Metrics_Tokn: 'x',
  };
  if (DB_KIND === 'pglite') {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-operating-'));
    await createAccount(null, dataDir);
    server = await startServer({ databaseUrl: null, dataDir, env: { ...env, SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:9` } });
  } else {
    await createAccount(TEST_DATABASE_URL, '');
    // On the run's database its mail workers deliver the run's outbox like the run's server,
    // so they write .eml files where the run's tests read them: an SMTP server that refuses
    // (the PGlite pass checks its password is never logged) took other files' mail and put
    // it off, doubling the wait each time (the CLI's invitation mail missed its 60 s).
    server = await startServer({ databaseUrl: urlWithPassword(), dataDir: DATA_DIR, workers: 2, env });
  }
});

after(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The server's JSON log lines so far. */
function logLines(): Array<Record<string, any>> {
  return fs.readFileSync(server.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

/** GET over a new connection each time, so a cluster's workers share the requests. */
function getFresh(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { connection: 'close', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

const metrics = (headers: Record<string, string> = {}) => getFresh(`${server.baseUrl}/metrics`, headers);

describe('GET /metrics', () => {
  test('is not there when METRICS_TOKEN is not set (the run\'s own server)', async () => {
    const res = await anonymous.get('/metrics');
    expectStatus(res, 404);
    assert.deepEqual(res.json, { detail: 'Not found.' });
  });

  test('answers 401 without the token, with another token, and with the token in another scheme', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-metrics-token' }, { authorization: `Token ${TOKEN}` }, { token: TOKEN }] as Array<Record<string, string>>) {
      const res = await metrics(headers);
      assert.equal(res.status, 401, `${JSON.stringify(headers)}: ${res.body}`);
      assert.deepEqual(JSON.parse(res.body), { detail: 'The metrics need Authorization: Bearer <METRICS_TOKEN>.' });
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"');
      assert.doesNotMatch(res.body, /records_/);
    }
  });

  test('answers the listed series in Prometheus text format to the token', async () => {
    await getFresh(`${server.baseUrl}/health/`);
    // The server answers once one worker listens; a scrape leaves out a worker still
    // starting (core/metrics.ts), so on PostgreSQL wait until both are in it (CI saw only worker 2).
    let res = await metrics({ authorization: `Bearer ${TOKEN}` });
    for (let i = 0; DB_KIND === 'postgres' && i < 300 && !/^records_process_resident_memory_bytes\{worker="1"\} /m.test(res.body); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      res = await metrics({ authorization: `Bearer ${TOKEN}` });
    }
    assert.equal(res.status, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    for (const series of [
      'records_http_requests_total{method="GET",route="/health/",status="200"}',
      'records_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/health/",status="200"}',
      'records_http_request_duration_seconds_count{method="GET",route="/health/",status="200"}',
      'records_nodejs_eventloop_lag_seconds',
      'records_mail_outbox_pending',
      'records_mail_outbox_oldest_pending_seconds',
      'records_live_streams_open',
      'records_cell_writes_total',
      'records_credits_debited_total',
      'records_db_pool_wait_seconds_count',
      'records_heavy_work_reserved_bytes',
      'records_heavy_work_waiting',
      'records_process_resident_memory_bytes',
    ]) {
      // In a cluster (PostgreSQL: two workers) a process's own metrics are per worker (cluster.test.ts).
      const perWorker = DB_KIND === 'postgres' && /^records_(process|nodejs)_/.test(series) ? `${series}{worker="1"}` : series;
      assert.ok(res.body.split('\n').some((line) => line.startsWith(`${perWorker} `)), `no ${perWorker} in:\n${res.body.slice(0, 3000)}`);
    }
    if (DB_KIND === 'postgres') {
      for (const state of ['total', 'idle', 'waiting']) assert.match(res.body, new RegExp(`^records_db_pool_connections\\{state="${state}"\\} \\d+$`, 'm'));
    }
  });

  test('counts a notification stream while it is open, in whichever process holds it', async () => {
    const value = async () => Number(/^records_live_streams_open (\d+)$/m.exec((await metrics({ authorization: `Bearer ${TOKEN}` })).body)![1]);
    const before = await value();
    // A stream refused (no credential) is never counted open.
    assert.equal((await getFresh(`${server.baseUrl}/notifications/notification/stream/`)).status, 401);
    assert.equal(await value(), before);
    const signedIn = await anonymous.at(server.baseUrl).post('/accounts/auth/', { username: account.email, password: account.password });
    expectStatus(signedIn, 200);
    const stream = await new Promise<http.ClientRequest>((resolve, reject) => {
      const req = http.get(`${server.baseUrl}/notifications/notification/stream/`, { agent: false, headers: { token: signedIn.json.token, accept: 'text/event-stream' } }, (res) => {
        assert.equal(res.statusCode, 200);
        resolve(req);
      });
      req.on('error', reject);
    });
    assert.equal(await value(), before + 1);
    stream.destroy();
    let now = before + 1;
    for (let i = 0; i < 50 && now !== before; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      now = await value();
    }
    assert.equal(now, before, 'a closed stream is no longer counted');
  });

  // PostgreSQL only (this file's PGlite server has a database of its own; the run's records are on PostgreSQL): not registered in the PGlite pass.
  if (DB_KIND === 'postgres') test('counts cell writes and the credits they debit, whichever process took them (PostgreSQL)', async () => {
    const ws = await newWorkspace({ label: 'metrics', widgets: { priced: { price: '0.05' } }, columns: { priced: 'priced' }, allRoles: false });
    const api = ws.api.projectAdmin.at(server.baseUrl);
    const total = (body: string, name: string) => Number(new RegExp(`^${name} ([\\d.e+-]+)$`, 'm').exec(body)![1]);
    const before = (await metrics({ authorization: `Bearer ${TOKEN}` })).body;
    const cell = await api.post(`/tables/cell/list/organization/${ws.org.sid}/detail/`, { column: ws.columns.priced.sid, data: 'one' }, { query: { row__sid: ws.rows[0].sid } });
    expectStatus(cell, 201);
    for (const data of ['two', 'three']) expectStatus(await api.patch(`/tables/cell/detail/${cell.json.sid}/`, { data }), 200);
    const afterBody = (await metrics({ authorization: `Bearer ${TOKEN}` })).body;
    assert.equal(total(afterBody, 'records_cell_writes_total') - total(before, 'records_cell_writes_total'), 3);
    assert.equal(Math.round((total(afterBody, 'records_credits_debited_total') - total(before, 'records_credits_debited_total')) * 100), 15);
  });
});

describe('request ids', () => {
  test('every answer carries a new X-Request-Id, found in every log line of that request, across processes', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 16; i += 1) {
      const res = await getFresh(`${server.baseUrl}/no/such/path/`);
      assert.equal(res.status, 404);
      const id = String(res.headers['x-request-id']);
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a random UUID');
      ids.push(id);
    }
    assert.equal(new Set(ids).size, ids.length, 'no id is given twice');
    await new Promise((r) => setTimeout(r, 300));
    const lines = logLines();
    const pids = new Set<number>();
    for (const id of ids) {
      const mine = lines.filter((l) => l.reqId === id);
      assert.deepEqual(mine.map((l) => l.msg).sort(), ['incoming request', 'request completed'], `log lines of ${id}`);
      assert.equal(new Set(mine.map((l) => l.pid)).size, 1);
      pids.add(mine[0]!.pid);
      // No line that is not this request's names it.
      assert.equal(lines.filter((l) => l.reqId !== id && JSON.stringify(l).includes(id)).length, 0);
    }
    if (DB_KIND === 'postgres') assert.equal(pids.size, 2, 'both worker processes answered some of the requests');
  });

  test('a caller\'s valid X-Request-Id is kept; an invalid one is replaced', async () => {
    const kept = await getFresh(`${server.baseUrl}/health/`, { 'x-request-id': 'client-trace-42:abc' });
    assert.equal(kept.headers['x-request-id'], 'client-trace-42:abc');
    for (const bad of ['x'.repeat(129), 'has space', 'quote"d']) {
      const res = await getFresh(`${server.baseUrl}/health/`, { 'x-request-id': bad });
      assert.notEqual(res.headers['x-request-id'], bad);
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(logLines().filter((l) => l.reqId === 'client-trace-42:abc').length, 2);
  });

  test('errors carry the request id too (401, 405)', async () => {
    const unauthorized = await getFresh(`${server.baseUrl}/accounts/checktoken/`);
    assert.equal(unauthorized.status, 401);
    assert.match(String(unauthorized.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const res = await anonymous.at(server.baseUrl).request('DELETE', '/health/');
    expectStatus(res, 405);
    assert.match(String(res.headers.get('x-request-id')), /^[0-9a-f-]{36}$/);
  });
});

describe('start-up', () => {
  test('one line says the version, database, mail, workers and public URL, with no password', () => {
    const lines = logLines().filter((l) => l.msg === 'records service started');
    assert.equal(lines.length, 1, 'exactly one start-up line, even with two workers');
    const line = lines[0]!;
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    assert.equal(line.version, pkg.version);
    assert.equal(line.workers, DB_KIND === 'postgres' ? 2 : 1);
    assert.equal(line.mail, DB_KIND === 'postgres' ? `.eml files in ${path.join(DATA_DIR, 'mail')}` : 'SMTP 127.0.0.1:9');
    assert.equal(line.listen, server.baseUrl);
    if (DB_KIND === 'postgres') {
      const url = new URL(TEST_DATABASE_URL!);
      assert.equal(line.database, `PostgreSQL ${url.hostname}:${url.port || '5432'}/${url.pathname.slice(1)}`);
    } else {
      assert.equal(line.database, `embedded PGlite at ${path.join(dataDir, 'pgdata')}`);
    }
    const log = fs.readFileSync(server.logFile, 'utf8');
    assert.ok(!log.includes(SMTP_PASSWORD), 'the SMTP password is in the log');
    assert.ok(!log.includes(DB_PASSWORD), 'the database password is in the log');
  });

  test('a variable that looks like a setting but is not one is warned about, with the setting it probably meant', () => {
    const warnings = logLines().filter((l) => l.level === 40 && l.variable);
    assert.deepEqual(warnings.map((l) => [l.variable, l.setting]).sort(), [['DATABSE_URL', 'DATABASE_URL'], ['Metrics_Tokn', 'METRICS_TOKEN']]);
    assert.equal(warnings[0]!.msg.includes('is not a setting of this service'), true);
  });
});

describe('health', () => {
  test('/health/live/ and /health/ready/ answer 200; readiness names the migrations applied', async () => {
    const live = await anonymous.at(server.baseUrl).get('/health/live/');
    expectStatus(live, 200);
    assert.deepEqual(live.json, { status: 'ok' });
    const ready = await anonymous.at(server.baseUrl).get('/health/ready/');
    expectStatus(ready, 200);
    const journal = JSON.parse(fs.readFileSync(new URL('../../src/db/migrations/meta/_journal.json', import.meta.url), 'utf8'));
    assert.deepEqual(ready.json, { status: 'ok', migrations: journal.entries.length });
    expectStatus(await anonymous.at(server.baseUrl).get('/health/'), 200);
    for (const p of ['/health/live/', '/health/ready/']) {
      const res = await anonymous.at(server.baseUrl).request('POST', p);
      expectStatus(res, 405);
      assert.equal(res.headers.get('allow'), 'GET');
    }
  });

  // PostgreSQL only (PGlite cannot be changed while its server runs): not registered in the PGlite pass.
  // On a database of its own: a server of another file starting while the migration's row is
  // gone from the run's database would apply that migration again.
  if (DB_KIND === 'postgres') test('readiness is 503 while a migration of this build is not applied; liveness stays 200 (PostgreSQL)', async () => {
    const journal = JSON.parse(fs.readFileSync(new URL('../../src/db/migrations/meta/_journal.json', import.meta.url), 'utf8'));
    const n = journal.entries.length;
    const scratch = await scratchDatabase('readiness');
    const own = await startServer({ databaseUrl: scratch.url });
    const db = new pg.Client({ connectionString: scratch.url });
    await db.connect();
    try {
      const removed = (await db.query('DELETE FROM drizzle.__drizzle_migrations WHERE id = (SELECT max(id) FROM drizzle.__drizzle_migrations) RETURNING *')).rows[0];
      const ready = await anonymous.at(own.baseUrl).get('/health/ready/');
      expectStatus(ready, 503);
      assert.deepEqual(ready.json, { status: 'unavailable', detail: `${n - 1} of ${n} migrations are applied; the service applies them when it starts.` });
      expectStatus(await anonymous.at(own.baseUrl).get('/health/live/'), 200);
      await db.query('INSERT INTO drizzle.__drizzle_migrations (id, hash, created_at) VALUES ($1, $2, $3)', [removed.id, removed.hash, removed.created_at]);
      expectStatus(await anonymous.at(own.baseUrl).get('/health/ready/'), 200);
    } finally {
      await db.end();
      await own.stop();
      await scratch.drop();
    }
  });
});

describe('tracing (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  test('each request is a span carrying its request id, with its SQL statements as spans inside it', async () => {
    // An OTLP/HTTP receiver: the exporter posts JSON to /v1/traces.
    const received: any[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/v1/traces') received.push(JSON.parse(body));
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    const traceDir = DB_KIND === 'pglite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'records-tracing-')) : '';
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
    const traced = await startServer(DB_KIND === 'pglite' ? { databaseUrl: null, dataDir: traceDir, env } : { env });
    try {
      const res = await getFresh(`${traced.baseUrl}/health/`, { 'x-request-id': 'traced-request-1' });
      assert.equal(res.status, 200);
      const spans = () => received.flatMap((r) => r.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((s: any) => s.spans)));
      const attr = (span: any, key: string) => span.attributes.find((a: any) => a.key === key)?.value;
      let request: any;
      for (let i = 0; i < 100 && !request; i += 1) {
        request = spans().find((s) => attr(s, 'records.request_id')?.stringValue === 'traced-request-1');
        if (!request) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(request, 'the request\'s span reached the receiver');
      assert.equal(request.name, 'GET /health/');
      assert.equal(attr(request, 'http.response.status_code')?.intValue, 200);
      let statements: any[] = [];
      for (let i = 0; i < 50 && !statements.length; i += 1) {
        statements = spans().filter((s) => s.parentSpanId === request.spanId);
        if (!statements.length) await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(statements.map((s) => [s.traceId, attr(s, 'db.statement')?.stringValue]), [[request.traceId, 'SELECT 1']]);
    } finally {
      await traced.stop();
      receiver.close();
      if (traceDir) fs.rmSync(traceDir, { recursive: true, force: true });
    }
  });
});
