// How many SQL statements a request sends, for the Server-Timing header (SERVER_TIMING=true):
// a test (and an operator) can see from outside that a page of a list costs the same
// number of queries whatever its size. Every statement goes through Drizzle, whose logger
// counts it in the request's AsyncLocalStorage store.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'drizzle-orm';

interface Tally { queries: number; started: bigint }
const current = new AsyncLocalStorage<Tally>();

declare module 'fastify' {
  interface FastifyRequest {
    queryTally?: Tally;
  }
}

/** Drizzle's logger: counts each statement of the request it runs for. */
export const queryCounter: Logger = {
  logQuery() {
    const tally = current.getStore();
    if (tally) tally.queries += 1;
  },
};

/** Answers carry `Server-Timing: db;desc="<n> queries", total;dur=<ms>`. */
export function installServerTiming(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const tally: Tally = { queries: 0, started: process.hrtime.bigint() };
    request.queryTally = tally;
    current.run(tally, done);
  });
  app.addHook('onSend', async (request, reply) => {
    const tally = request.queryTally;
    if (!tally) return;
    const ms = Number(process.hrtime.bigint() - tally.started) / 1e6;
    reply.header('server-timing', `db;desc="${tally.queries} queries", total;dur=${ms.toFixed(1)}`);
  });
}
