// Writers of one record take turns within the process before their transaction takes a
// pooled connection (docs/decisions.md, "Hot records take turns in the process").
//
// Every writer of a row locks it (FOR UPDATE) in its transaction and holds the lock until its
// commit is on disk; twenty writers of one row at once would hold twenty connections, nineteen
// of them waiting for that lock, and with a pool of ten the rest of the service — every other
// organization — waits for a connection and gets 503 after CONNECTION_WAIT. Here they wait on
// a promise instead: one connection per hot record per process. The key is what the request
// names, without a query: the cell for a cell's PATCH (its PATCHes are the hot path), the row
// for a row's PATCH and for a new cell or section of the row, the section for its PATCH.
// Writers of different keys of one row still meet at the row's lock, at most one per key.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KeyedQueue } from './record-lock.js';

type KeyOf = (request: FastifyRequest) => string | undefined;

const param = (prefix: string): KeyOf => (request) => {
  const sid = (request.params as { sid?: unknown }).sid;
  return typeof sid === 'string' ? `${prefix}:${sid}` : undefined;
};

/** The row a new cell or section goes to: `?row__sid=` or the body's `row` (a sid or {sid}). */
const newChildOfRow: KeyOf = (request) => {
  const query = (request.query ?? {}) as { row__sid?: unknown };
  const body = (request.body ?? {}) as { row?: unknown };
  const named = typeof query.row__sid === 'string' ? query.row__sid
    : typeof body.row === 'string' ? body.row
      : typeof body.row === 'object' && body.row !== null && typeof (body.row as { sid?: unknown }).sid === 'string' ? (body.row as { sid: string }).sid
        : undefined;
  return named ? `row:${named}` : undefined;
};

/** The routes whose requests take turns: method and route URL (a list's POST is one route per serializer). */
const WRITERS: Array<[RegExp, KeyOf]> = [
  [/^PATCH \/tables\/cell\/detail\/:sid\/$/, param('cell')],
  [/^PATCH \/tables\/row\/detail\/:sid\/$/, param('row')],
  [/^(PATCH|DELETE) \/tables\/section\/detail\/:sid\/$/, param('section')],
  [/^POST \/tables\/(cell|section)\/list\/:level\/:sid\/[a-z:]+\/$/, newChildOfRow],
];

/** Installs the turns: a request takes its key's turn once validated, and gives it back when its answer is sent or it is abandoned. */
export function installWriteTurns(app: FastifyInstance): void {
  const turns = new KeyedQueue();
  app.addHook('preHandler', async (request, reply) => {
    const route = `${request.method} ${request.routeOptions.url}`;
    const key = WRITERS.find(([pattern]) => pattern.test(route))?.[1](request);
    if (!key) return;
    const end = await turns.turn(key);
    reply.raw.once('close', end);
    if (reply.raw.destroyed) end();
  });
}
