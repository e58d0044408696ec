// Answers that never reach a route: the router's own refusals (a malformed or overlong
// path), requests that do not parse as HTTP, too large headers, clients too slow to send
// a request, and paths without their trailing slash. Each gets the API's body
// ({"detail": …}), never the framework's {"error","code","message"}.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGES } from './errors.js';

/**
 * The longest path parameter the router matches. Above Node's whole header limit (16 KiB),
 * so the router never refuses a sid for its length: the route answers it (a cell PATCH its
 * plain-text 406, others their 404 or 406), whatever its length.
 */
export const MAX_PARAM_LENGTH = 65_536;

export const PROTOCOL_MESSAGES = {
  badUrl: 'Bad request - the path is not a valid URL (a malformed %-escape?).',
  urlTooLong: 'The request URL is too long.',
  malformed: 'Bad request - the request is not valid HTTP.',
  headersTooLarge: 'The request headers (or the URL) are too large.',
  timeout: 'The request did not arrive in time; send it again.',
  addSlash: 'Not found. Paths end with a slash: add the trailing slash.',
} as const;

function sendDetail(reply: FastifyReply, status: number, detail: string) {
  return reply.code(status).headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' })
    .type('application/json; charset=utf-8').send(JSON.stringify({ detail }));
}

/** Fastify's `frameworkErrors`: the router's refusals in the API's bodies. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendDetail(reply, 414, PROTOCOL_MESSAGES.urlTooLong);
  if (error.code === 'FST_ERR_BAD_URL') return sendDetail(reply, 400, PROTOCOL_MESSAGES.badUrl);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return sendDetail(reply, error.statusCode, PROTOCOL_MESSAGES.malformed);
  return sendDetail(reply, 500, MESSAGES.serverError);
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refused (garbage on the socket,
 * headers over the limit, a client too slow to send its request) gets a complete HTTP
 * answer with the API's body, and the connection is closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let detail: string = PROTOCOL_MESSAGES.malformed;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    detail = PROTOCOL_MESSAGES.timeout;
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    detail = PROTOCOL_MESSAGES.headersTooLarge;
  } else if (error.code === 'HPE_URI_TOO_LONG') {
    status = 414;
    detail = PROTOCOL_MESSAGES.urlTooLong;
  }
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n${body}`);
  }
  socket.destroySoon?.();
}

/**
 * A path without its trailing slash: GET and HEAD are redirected (308, the query kept) to
 * the path with the slash; other methods get a 404 that says what to change. Null when
 * the path has its slash (a plain 404).
 */
export function missingSlash(request: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  const url = request.raw.url ?? request.url;
  const at = url.indexOf('?');
  const path = at < 0 ? url : url.slice(0, at);
  if (path.endsWith('/') || path === '') return null;
  // A file's path (a missing /assets/app-1a2b.js, /favicon.ico) is not an API path without its slash.
  if (/\.[A-Za-z0-9]{1,8}$/.test(path.slice(path.lastIndexOf('/') + 1))) return null;
  if (request.method === 'GET' || request.method === 'HEAD') {
    // Only the path's own text is kept: a path starting with two slashes (or a slash and a
    // backslash, which browsers read alike) would name another host.
    const target = `/${path.replace(/^[/\\]+/, '')}/${at < 0 ? '' : url.slice(at)}`;
    return reply.code(308).header('location', target).type('application/json; charset=utf-8')
      .send(JSON.stringify({ detail: `Moved permanently to ${target.length > 200 ? 'the path with a trailing slash' : target}.` }));
  }
  return reply.code(404).type('application/json; charset=utf-8').send(JSON.stringify({ detail: PROTOCOL_MESSAGES.addSlash }));
}


/**
 * What real clients send: `Content-Type: application/json` with no body at all (the Python
 * SDK does so on every DELETE). A request whose Content-Length is 0 (or absent, without
 * Transfer-Encoding) has no body, whatever its Content-Type says: it is handled as if it
 * had none, so a DELETE (which takes no body) succeeds, and a route that needs a body
 * answers that the body is empty (the error handler), as before.
 */
export function installEmptyBodyAsNone(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const headers = request.raw.headers;
    if (headers['content-type'] === undefined || headers['transfer-encoding'] !== undefined) return;
    const length = headers['content-length'];
    if (length === undefined || length === '0') delete headers['content-type'];
  });
}

/** How long, and how much, a refused upload is still read before its connection closes (`lingerAfterRefusal`). */
const LINGER_MS = 5_000;
const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * A lingering close for a request refused before its body was read (413 over the limit):
 * Fastify answers it with `Connection: close`, and Node then closes the socket at once,
 * with the client's upload still arriving. A socket closed with unread data is
 * reset, and a client still sending reads the reset instead of the answer (ECONNRESET or
 * EPIPE, not the 413 that says why). Instead the answer is sent and the sending side shut
 * (FIN), and what the client still sends is read and dropped until it closes its side, for
 * at most 5 s or 64 MiB; then the socket is closed (as web servers' "lingering close").
 */
export function lingerAfterRefusal(request: http.IncomingMessage): void {
  if (request.complete) return;
  const socket = request.socket as Socket & { destroySoon: () => void };
  const destroySoon = socket.destroySoon;
  // Node calls destroySoon once the last answer on a `Connection: close` socket is written.
  socket.destroySoon = function lingeringClose(this: Socket & { destroySoon: () => void }) {
    this.destroySoon = destroySoon;
    let dropped = 0;
    const close = () => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
    this.once('end', close); // the client closed its side: it has read the answer
    this.once('close', () => clearTimeout(timer));
    request.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER_BYTES) close();
    });
    this.end();
    request.resume();
  };
}
