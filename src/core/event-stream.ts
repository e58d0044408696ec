// Server-Sent Events: what every live stream of the API shares — its headers, its frames,
// the keep-alive, and the check that the credentials of open streams still hold.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { query } from '../db/client.js';

const KEEP_ALIVE_MS = 15_000;
/** A client that reads slower than this much pending output is dropped (it reconnects). */
const MAX_PENDING_BYTES = 1024 * 1024;

export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

export interface EventStream {
  /** Writes one event (`data` as JSON); dropped once the stream is closed. */
  send(event: string, data: unknown, id?: string): void;
  /** Ends the stream with an `end` event saying why (so a client does not reconnect in vain). */
  end(reason: string): void;
  /** Closes the stream without a word (the client left, the server stops). */
  close(): void;
  readonly closed: boolean;
}

/**
 * Takes over the reply and opens an event stream: `retry: 3000`, a `connected` comment,
 * a keep-alive comment every 15 seconds. `onClose` runs once, however it closes.
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply, onClose: () => void): EventStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { ...EVENT_STREAM_HEADERS, 'x-request-id': String(request.id) });
  res.write('retry: 3000\n: connected\n\n');
  let closed = false;
  const keepAlive = setInterval(() => {
    if (!closed) res.write(': keep-alive\n\n');
  }, KEEP_ALIVE_MS);
  keepAlive.unref();
  const stream: EventStream = {
    get closed() {
      return closed;
    },
    send(event, data, id) {
      if (closed) return;
      res.write(`${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (res.writableLength > MAX_PENDING_BYTES) stream.close();
    },
    end(reason) {
      stream.send('end', { detail: reason });
      stream.close();
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      res.end();
      onClose();
    },
  };
  res.on('close', () => stream.close());
  res.on('error', () => stream.close());
  return stream;
}

/**
 * Of the credentials `credentialSids` (of open streams), those that still hold: not
 * deleted (logout, a deleted API key, a password reset), the account active, a session
 * not idle. An open stream counts as use of its session token (at most once a minute).
 * Reads the database, so it sees revocations made through any server process.
 */
export async function validStreamCredentials(ctx: AppContext, credentialSids: string[]): Promise<Set<string>> {
  if (!credentialSids.length) return new Set();
  // Sids are letters and digits: one comma-separated parameter keeps one statement text (prepared once).
  const credentials = await query<{ sid: string; stale: boolean }>(ctx.db, sql`
    SELECT c.sid, c.kind = 'session' AND c.last_used_at < now() - interval '60 seconds' AS stale
      FROM credentials c JOIN users u ON u.sid = c.user_sid
     WHERE c.sid = ANY(string_to_array(${credentialSids.join(',')}, ',')) AND u.is_active
       AND (c.kind = 'apikey' OR c.last_used_at > now() - make_interval(mins => ${ctx.config.tokenIdleMinutes}))`);
  const stale = credentials.filter((c) => c.stale).map((c) => c.sid);
  if (stale.length) await ctx.db.execute(sql`UPDATE credentials SET last_used_at = now() WHERE sid = ANY(string_to_array(${stale.join(',')}, ','))`);
  return new Set(credentials.map((c) => c.sid));
}
