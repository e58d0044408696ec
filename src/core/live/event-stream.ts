// Server-Sent Events: what every live stream of the API writes — its headers, its frames,
// the keep-alive, and the bound on output a slow reader may leave pending.
import type { FastifyReply, FastifyRequest } from 'fastify';

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
  // The client left before the stream opened (while the route read the database): no close event will come.
  if (res.destroyed || request.raw.socket?.destroyed) stream.close();
  return stream;
}
