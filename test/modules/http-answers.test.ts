// Every answer is one of the API's documented bodies, also where no route is reached: an
// unknown path, a path without its trailing slash, the router's limits (a 4,000-character
// sid), 405, 413, 414/431, 415, a client too slow to send its request, garbage on the
// socket. Sent over raw sockets, so nothing between the test and the server (fetch's
// redirect handling, its URL normalization) changes what is sent or what comes back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { BASE_URL } from '../helpers/env.ts';
import { MESSAGES } from '../helpers/assertions.ts';
import { newOrganization } from '../helpers/factories.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after the answer. */
  closed: boolean;
}

/** Sends `bytes` on a fresh connection (optionally pausing before `rest`) and reads the first answer. */
function rawRequest(baseUrl: string, bytes: string | Buffer, options: { waitMs?: number } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    let closed = false;
    const timer = setTimeout(() => finish(), options.waitMs ?? 5_000);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no complete answer: ${JSON.stringify(text.slice(0, 300))}`));
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: data.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1')).subarray(0, length).toString('utf8'), closed });
    };
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end >= 0) {
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end))?.[1];
        if (length !== undefined && data.length >= Buffer.byteLength(text.slice(0, end + 4), 'latin1') + Number(length)) {
          // Give the server a moment to close the connection, when it means to.
          setTimeout(finish, 50);
        }
      }
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', () => {});
    socket.write(bytes);
  });
}

const request = (method: string, target: string, headers: Record<string, string> = {}, body = '') =>
  `${method} ${target} HTTP/1.1\r\nHost: test\r\n${Object.entries({ ...headers, ...(body || ['POST', 'PATCH', 'PUT'].includes(method) ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) })
    .map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`;

const JSON_TYPE = /^application\/json; charset=utf-8$/;
const detail = (text: string) => JSON.stringify({ detail: text });

interface Row {
  what: string;
  send: () => string | Buffer;
  status: number;
  body: string;
  /** text/plain for the spec's 406 messages; JSON otherwise. */
  plain?: boolean;
  headers?: Record<string, string | RegExp>;
  /** Another server (with a short REQUEST_TIMEOUT_SECONDS) and how long to wait. */
  slow?: boolean;
}

describe('every answer uses the API\'s bodies, also where no route is reached', () => {
  let token: string;
  let slowServer: RunningServer;

  before(async () => {
    const { admin } = await newOrganization('answers');
    token = admin.api.token!;
    slowServer = await startServer({ env: { REQUEST_TIMEOUT_SECONDS: '1' } });
  });
  after(async () => {
    await slowServer?.stop();
  });

  const longSid = 'a'.repeat(4_000);
  const rows: Row[] = [
    { what: 'an unknown path', send: () => request('GET', '/no/such/path/', { token }), status: 404, body: detail(MESSAGES.notFound) },
    { what: 'an unknown path, anonymous', send: () => request('GET', '/nothing/here/'), status: 404, body: detail(MESSAGES.notFound) },
    {
      what: 'a POST to an unknown path with a media type the service does not take: 404, not 415 (its body has nowhere to go)',
      send: () => request('POST', '/organizations/organization/list/user/..//detail/', { 'Content-Type': 'text/csv' }, 'a,b'), status: 404,
      body: detail(MESSAGES.notFound),
    },
    {
      what: 'GET without the trailing slash: 308 to the slash path, the query kept',
      send: () => request('GET', '/accounts/checktoken?x=1&y=2', { token }), status: 308,
      body: detail('Moved permanently to /accounts/checktoken/?x=1&y=2.'), headers: { location: '/accounts/checktoken/?x=1&y=2' },
    },
    {
      what: 'HEAD without the trailing slash: 308',
      send: () => request('HEAD', '/health', {}), status: 308, body: '', headers: { location: '/health/' },
    },
    {
      what: 'a path starting with // is redirected on this server, never to another host',
      send: () => request('GET', '//evil.example/x'), status: 308,
      body: detail('Moved permanently to /evil.example/x/.'), headers: { location: '/evil.example/x/' },
    },
    {
      what: 'a path starting with a slash and a backslash (read by browsers as //) is redirected on this server too',
      send: () => request('GET', '/\\evil.example/x'), status: 308,
      body: detail('Moved permanently to /evil.example/x/.'), headers: { location: '/evil.example/x/' },
    },
    {
      what: 'POST without the trailing slash: 404 that says to add it',
      send: () => request('POST', '/accounts/auth', { 'Content-Type': 'application/json' }, '{"username":"a@b.c","password":"x"}'),
      status: 404, body: detail('Not found. Paths end with a slash: add the trailing slash.'),
    },
    {
      what: 'PATCH without the trailing slash: 404 that says to add it',
      send: () => request('PATCH', `/tables/cell/detail/${'b'.repeat(16)}`, { token, 'Content-Type': 'application/json' }, '{"data":"x"}'),
      status: 404, body: detail('Not found. Paths end with a slash: add the trailing slash.'),
    },
    {
      what: 'a method the path does not offer: 405 with Allow',
      send: () => request('PUT', '/tables/version/detail/abc/', { token, 'Content-Type': 'application/json' }, '{}'),
      status: 405, body: detail('Method "PUT" not allowed.'), headers: { allow: 'GET, PATCH' },
    },
    {
      what: 'a cell PATCH with a 4,000-character sid: the spec\'s plain-text 406',
      send: () => request('PATCH', `/tables/cell/detail/${longSid}/`, { token, 'Content-Type': 'application/json' }, '{"data":"x"}'),
      status: 406, body: MESSAGES.wrongId, plain: true,
    },
    {
      what: 'a cell PATCH with a 600-character sid (over the former router limit): 406',
      send: () => request('PATCH', `/tables/cell/detail/${'c'.repeat(600)}/`, { token, 'Content-Type': 'application/json' }, '{"data":"x"}'),
      status: 406, body: MESSAGES.wrongId, plain: true,
    },
    {
      what: 'a row detail with a 4,000-character sid: 404',
      send: () => request('GET', `/tables/row/detail/${longSid}/`, { token }), status: 404, body: detail(MESSAGES.notFound),
    },
    {
      what: 'a list with a 4,000-character organization sid: the 406 of an unknown organization',
      send: () => request('GET', `/organizations/personnel/list/organization/${longSid}/name/`, { token }), status: 406, body: MESSAGES.wrongId, plain: true,
    },
    {
      what: 'a malformed %-escape in the path: 400',
      send: () => request('GET', '/tables/row/detail/%zz/', { token }), status: 400,
      body: detail('Bad request - the path is not a valid URL (a malformed %-escape?).'),
    },
    {
      what: 'a URL longer than the server takes (20,000 characters): 431',
      send: () => request('GET', `/tables/row/detail/${'d'.repeat(20_000)}/`, { token }), status: 431,
      body: detail('The request headers (or the URL) are too large.'), headers: { connection: 'close' },
    },
    {
      what: 'headers over the limit: 431',
      send: () => request('GET', '/health/', { 'X-Big': 'e'.repeat(20_000) }), status: 431,
      body: detail('The request headers (or the URL) are too large.'),
    },
    {
      what: 'a body over the limit: 413',
      send: () => request('POST', '/accounts/auth/', { 'Content-Type': 'application/json' }, JSON.stringify({ username: 'x'.repeat(1_100_000) })),
      status: 413, body: detail('Request body is too large.'),
    },
    {
      what: 'another media type: 415',
      send: () => request('POST', '/accounts/auth/', { 'Content-Type': 'text/plain' }, 'hello'), status: 415,
      body: detail('Unsupported media type "text/plain" in request; send application/json.'),
    },
    {
      what: 'malformed JSON: 400',
      send: () => request('POST', '/accounts/auth/', { 'Content-Type': 'application/json' }, '{"username": '), status: 400,
      body: detail(MESSAGES.notJson),
    },
    {
      what: 'garbage on the socket: 400, and the connection closed',
      send: () => 'GARBAGE\r\n\r\n', status: 400, body: detail('Bad request - the request is not valid HTTP.'), headers: { connection: 'close' },
    },
    {
      what: 'binary garbage: 400',
      send: () => Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0x0d, 0x0a, 0x0d, 0x0a]), status: 400,
      body: detail('Bad request - the request is not valid HTTP.'),
    },
    {
      what: 'a request whose headers never end (REQUEST_TIMEOUT_SECONDS=1): 408, and the connection closed',
      send: () => 'GET /health/ HTTP/1.1\r\nHost: test\r\n', slow: true, status: 408,
      body: detail('The request did not arrive in time; send it again.'), headers: { connection: 'close' },
    },
    {
      what: 'a body that never arrives in full (REQUEST_TIMEOUT_SECONDS=1): 408',
      send: () => 'POST /accounts/auth/ HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user', slow: true,
      status: 408, body: detail('The request did not arrive in time; send it again.'),
    },
  ];

  for (const row of rows) {
    test(row.what, async () => {
      const answer = await rawRequest(row.slow ? slowServer.baseUrl : BASE_URL, row.send(), { waitMs: row.slow ? 5_000 : 3_000 });
      const context = `${row.what}: ${answer.status} ${JSON.stringify(answer.headers)} ${answer.body.slice(0, 300)}`;
      assert.equal(answer.status, row.status, context);
      assert.equal(answer.body, row.body, context);
      if (row.body) {
        if (row.plain) assert.match(answer.headers['content-type'] ?? '', /^text\/plain; charset=utf-8$/, context);
        else assert.match(answer.headers['content-type'] ?? '', JSON_TYPE, context);
      }
      assert.equal(answer.headers['x-content-type-options'], 'nosniff', `${context}: nosniff`);
      for (const [name, value] of Object.entries(row.headers ?? {})) {
        if (value instanceof RegExp) assert.match(answer.headers[name] ?? '', value, `${context}: ${name}`);
        else assert.equal((answer.headers[name] ?? '').toLowerCase(), value.toLowerCase(), `${context}: ${name}`);
      }
      // A raw answer has no framework fields in it.
      assert.doesNotMatch(answer.body, /"(error|code|statusCode|message)"/, context);
    });
  }

  test('the same server goes on serving after all of it', async () => {
    const answer = await rawRequest(BASE_URL, request('GET', '/health/'));
    assert.equal(answer.status, 200);
    assert.equal(answer.body, '{"status":"ok"}');
  });
});

test('REQUEST_TIMEOUT_SECONDS past Node\'s default 300 s: the server starts and serves (it failed at start with ERR_OUT_OF_RANGE)', async () => {
  const patient = await startServer({ env: { REQUEST_TIMEOUT_SECONDS: '900' } });
  try {
    const answer = await rawRequest(patient.baseUrl, request('GET', '/health/'));
    assert.equal(answer.status, 200);
    assert.equal(answer.body, '{"status":"ok"}');
  } finally {
    await patient.stop();
  }
});

describe('an upload refused before it is read is answered, not reset', () => {
  // The server answers 413 before the body has arrived and closes the connection.
  // Closed at once, with the client's upload still arriving, the socket was reset and the
  // client, still sending, lost the answer (EPIPE: 61 of 200 here); read to its end and
  // dropped (a lingering close), every client reads why it was refused.
  const UPLOADS = 40;
  const body = Buffer.from(JSON.stringify({ username: 'x'.repeat(2 * 1024 * 1024) }));
  const agent = new http.Agent({ keepAlive: false, maxSockets: 4 });
  after(() => agent.destroy());

  function upload(contentType: string, chunked: boolean): Promise<{ status: number; connection?: string; body: string }> {
    const { hostname, port } = new URL(BASE_URL);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'content-type': contentType };
      if (!chunked) headers['content-length'] = body.length;
      const req = http.request({ host: hostname, port, method: 'POST', path: '/accounts/auth/', headers, agent });
      let failure = '';
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', (err: NodeJS.ErrnoException) => { failure = err.code ?? err.message; });
      req.on('close', () => setTimeout(() => reject(new Error(`no answer: the connection ended (${failure || 'closed'})`)), 100));
      if (chunked) {
        for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
      } else {
        req.write(body);
      }
      req.end();
    });
  }

  for (const [what, contentType, chunked, status, detail] of [
    ['over the limit, with Content-Length', 'application/json', false, 413, 'Request body is too large.'],
    ['over the limit, chunked', 'application/json', true, 413, 'Request body is too large.'],
    // (415: the connection stays open, and Node reads the body to its end before the next request.)
    ['another media type', 'text/plain', false, 415, 'Unsupported media type "text/plain" in request; send application/json.'],
  ] as const) {
    test(`${UPLOADS} uploads of 2 MiB ${what}, four at a time: every one is answered ${status}`, async () => {
      const answers = await Promise.all(Array.from({ length: UPLOADS }, () => upload(contentType, chunked)));
      for (const answer of answers) {
        assert.deepEqual(answer, { status, connection: status === 413 ? 'close' : 'keep-alive', body: JSON.stringify({ detail }) });
      }
    });
  }
});
