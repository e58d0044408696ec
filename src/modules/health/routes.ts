// Health: GET /health/ (design: Starting and operating), and for orchestrators the split
// GET /health/live/ (the process answers) and GET /health/ready/ (it can serve: the
// database answers and every migration of this build is applied).
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { MIGRATIONS_DIR, query } from '../../db/client.js';

// Titled: the OpenAPI document names them so (core/openapi.ts).
const Unavailable = Type.Object({ status: Type.Literal('unavailable'), detail: Type.String() }, {
  title: 'HealthUnavailable', description: 'the service cannot serve: `detail` says why',
});
const Healthy = Type.Object({ status: Type.Literal('ok') }, { title: 'Health' });

/** Settles with the promise, or rejects after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

/** How many migrations this build ships (drizzle's journal). */
function shippedMigrations(): number {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
  return journal.entries.length;
}

export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  const shipped = shippedMigrations();

  /** Whether the database answers within 2 s. */
  const databaseAnswers = async () => {
    try {
      await within(ctx.db.execute(sql`SELECT 1`), 2000);
      return true;
    } catch {
      return false;
    }
  };

  app.get('/health/', {
    config: { auth: false },
    schema: {
      tags: ['health'],
      summary: 'Service health: 200 while the database answers',
      security: [],
      response: { 200: Healthy, 503: Unavailable },
    },
  }, async (_request, reply) => {
    if (await databaseAnswers()) return { status: 'ok' as const };
    return reply.code(503).send({ status: 'unavailable' as const, detail: 'The database does not answer.' });
  });

  app.get('/health/live/', {
    config: { auth: false },
    schema: {
      tags: ['health'],
      summary: 'Liveness: 200 while the process answers requests (nothing else is checked)',
      security: [],
      response: { 200: Healthy },
    },
  }, async () => ({ status: 'ok' as const }));

  app.get('/health/ready/', {
    config: { auth: false },
    schema: {
      tags: ['health'],
      summary: 'Readiness: 200 when the database answers and every migration of this build is applied',
      security: [],
      response: {
        200: Type.Object({ status: Type.Literal('ok'), migrations: Type.Integer() }, { title: 'Readiness' }),
        503: Unavailable,
      },
    },
  }, async (_request, reply) => {
    if (!(await databaseAnswers())) return reply.code(503).send({ status: 'unavailable' as const, detail: 'The database does not answer.' });
    let applied = 0;
    try {
      const [row] = await within(query<{ n: number }>(ctx.db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`), 2000);
      applied = row?.n ?? 0;
    } catch {
      applied = 0;
    }
    if (applied < shipped) {
      return reply.code(503).send({
        status: 'unavailable' as const,
        detail: `${applied} of ${shipped} migrations are applied; the service applies them when it starts.`,
      });
    }
    return { status: 'ok' as const, migrations: applied };
  });

  refuseOtherMethods(app, '/health/', ['GET']);
  refuseOtherMethods(app, '/health/live/', ['GET']);
  refuseOtherMethods(app, '/health/ready/', ['GET']);
}
