// Traces end with their request, and background work has traces of its own (issue 22,
// point 9). A server of its own (a fresh data folder, or a fresh PostgreSQL database so no
// other server's mail worker takes its mail) exports to a receiver in this test: the OTLP
// exporter posts JSON to /v1/traces. A signup queues its proof mail in a transaction and
// kicks the mail worker: the request's trace holds the statements of that transaction
// (on the embedded database they ran on the transaction's own handle and were missing),
// and nothing that starts after the request ended; the worker's delivery is a trace of its
// own, with its statements (before, its polls joined the trace of whichever request last
// kicked it, for ever).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DB_KIND } from '../helpers/env.ts';
import { scratchDatabase } from '../helpers/scratch-db.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { startServer } from '../helpers/server.ts';
import { anonymous } from '../helpers/http.ts';
import { strongPassword, uniqueEmail, unique } from '../helpers/factories.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const step of cleanups.reverse()) await step().catch(() => {});
});

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: number } }>;
}

/** An OTLP/HTTP receiver (JSON) keeping every span it is sent. */
async function receiver(): Promise<{ endpoint: string; spans: () => Span[] }> {
  const received: any[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/v1/traces') received.push(JSON.parse(body));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    spans: () => received.flatMap((r) => r.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((s: any) => s.spans))),
  };
}

const attr = (span: Span, key: string) => span.attributes.find((a) => a.key === key)?.value;
const statement = (span: Span) => attr(span, 'db.statement')?.stringValue?.trim().replace(/\s+/g, ' ') ?? '';

/** Waits (polling, at most ~30 s) for `find` to return something. */
async function waitFor<T>(what: string, find: () => T | undefined): Promise<T> {
  for (let i = 0; i < 300; i += 1) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`waited in vain for ${what}`);
}

/** A fresh PostgreSQL database on the run's server, dropped at the end. */
async function freshDatabase(): Promise<string> {
  const { url, drop } = await scratchDatabase('tracing');
  cleanups.push(drop);
  return url;
}

test('a request\'s trace holds its statements, a transaction\'s too, and ends with it; the mail it queued is sent in a trace of its own', async () => {
  const otlp = await receiver();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100', LOG_LEVEL: 'warn' };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-tracing-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServer({ databaseUrl: DB_KIND === 'postgres' ? await freshDatabase() : null, dataDir, env });
  cleanups.push(() => server.stop());

  const email = uniqueEmail('traced');
  const requestId = unique('traced-signup');
  const signup = await anonymous.at(server.baseUrl).post('/accounts/signup/', { email, password: strongPassword() }, { headers: { 'x-request-id': requestId } });
  expectStatus(signup, 201);

  const request = await waitFor('the signup\'s span', () => otlp.spans().find((s) => attr(s, 'records.request_id')?.stringValue === requestId));
  assert.equal(request.name, 'POST /accounts/signup/');
  assert.equal(request.parentSpanId || undefined, undefined, 'the request is the root of its trace');

  // The worker delivers the proof mail the signup queued: a run of the mail job, in a trace of its own.
  const sent = await waitFor('the mail job\'s statement that marks the mail sent', () => otlp.spans().find((s) => statement(s).startsWith('UPDATE mail_outbox SET status = \'sent\'')));
  const job = await waitFor('the mail job\'s span', () => otlp.spans().find((s) => s.spanId === sent.parentSpanId));
  assert.equal(job.name, 'job mail-delivery');
  assert.equal(attr(job, 'records.job')?.stringValue, 'mail-delivery');
  assert.equal(job.parentSpanId || undefined, undefined, 'the job\'s run is the root of its trace');
  assert.notEqual(job.traceId, request.traceId);
  const jobStatements = otlp.spans().filter((s) => s.traceId === job.traceId && s !== job);
  assert.ok(jobStatements.every((s) => s.parentSpanId === job.spanId), 'the run\'s statements are its children');
  assert.ok(jobStatements.some((s) => /^UPDATE mail_outbox SET attempts = attempts \+ 1/.test(statement(s))), 'the claim of the mail is in the run\'s trace');

  const inRequest = otlp.spans().filter((s) => s.traceId === request.traceId && s !== request);
  const texts = inRequest.map(statement);
  assert.ok(texts.some((t) => t.startsWith('INSERT INTO users')), `the account's INSERT, inside the signup's transaction, is in its trace: ${JSON.stringify(texts)}`);
  assert.ok(texts.some((t) => t.startsWith('INSERT INTO mail_outbox')), 'so is the queued mail\'s, in the same transaction');
  assert.ok(inRequest.every((s) => s.parentSpanId === request.spanId), 'every statement is a child of the request');
  const late = inRequest.filter((s) => BigInt(s.startTimeUnixNano) > BigInt(request.endTimeUnixNano)).map(statement);
  assert.deepEqual(late, [], 'nothing joins the request\'s trace after its answer');
  assert.ok(!texts.some((t) => t.includes('mail_outbox SET')), 'the mail worker\'s statements are not in the request\'s trace');
});
