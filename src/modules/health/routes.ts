import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { refuseOtherMethods } from '../../core/resource.js';

/** GET /health/: 200 {"status": "ok"} while the database answers, 503 {"status": "unavailable"} when it does not. */
export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  app.get('/health/', {
    config: { auth: false },
    schema: {
      tags: ['health'],
      summary: 'Service health',
      security: [],
      response: {
        200: Type.Object({ status: Type.Literal('ok') }),
        503: Type.Object({ status: Type.Literal('unavailable'), detail: Type.String() }),
      },
    },
  }, async (_request, reply) => {
    try {
      await Promise.race([
        ctx.db.execute(sql`SELECT 1`),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
      ]);
      return { status: 'ok' as const };
    } catch {
      return reply.code(503).send({ status: 'unavailable' as const, detail: 'The database does not answer.' });
    }
  });
  refuseOtherMethods(app, '/health/', ['GET']);
}
