// Idempotency-Key on POST: a retry with the same key and the same request gets the first
// answer again, without a second write, for 24 hours. Keys are per user.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import { query, type Db } from '../db/client.js';
import { canonicalJson } from './canonical-json.js';
import { ApiError, errors } from './errors.js';

/** How long a key's answer is replayed; the retention job (jobs/retention.ts) deletes entries older than this. */
export const KEEP_HOURS = 24;
// A key still "processing" after this long belongs to a request that died: it may be retried.
const ABANDONED_SECONDS = 60;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: { userSid: string; key: string };
    /** The answer holds a secret: what a replay answers instead of it (see withholdFromReplay). */
    withheld?: { statusCode: number; body: { detail: string } };
  }
}

/**
 * The answer of this request holds a secret (a new API key): it is never stored, and a
 * retry with the same Idempotency-Key gets `statusCode` and `{"detail": detail}` instead,
 * which should say what was created and what to do if the answer was lost.
 */
export function withholdFromReplay(request: FastifyRequest, statusCode: number, detail: string): void {
  request.withheld = { statusCode, body: { detail } };
}

interface Stored {
  request_hash: string;
  status: 'processing' | 'done';
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  expired: boolean;
  abandoned: boolean;
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256').update(`${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`).digest('hex');
}

/** Installs the hooks: claim the key before the handler, keep a successful answer after it. */
export function installIdempotency(app: FastifyInstance, db: Db): void {
  app.addHook('preHandler', async (request, reply) => {
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined || !request.actor) return;
    const key = Array.isArray(header) ? header[0] : header;
    if (!key || key.length > 255) throw errors.field('Idempotency-Key', 'Send a key of 1 to 255 characters.');
    const userSid = request.actor.userSid;
    const hash = requestHash(request);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const claimed = await query<{ key: string }>(db, sql`
        INSERT INTO idempotency_keys (user_sid, key, request_hash) VALUES (${userSid}, ${key}, ${hash})
        ON CONFLICT (user_sid, key) DO NOTHING RETURNING key`);
      if (claimed.length) {
        request.idempotencyKey = { userSid, key };
        return;
      }
      const [stored] = await query<Stored>(db, sql`
        SELECT request_hash, status, status_code, content_type, response_body,
               date_created < now() - make_interval(hours => ${KEEP_HOURS}) AS expired,
               date_created < now() - make_interval(secs => ${ABANDONED_SECONDS}) AS abandoned
          FROM idempotency_keys WHERE user_sid = ${userSid} AND key = ${key}`);
      if (!stored) continue;
      if (stored.expired || (stored.status === 'processing' && stored.abandoned)) {
        await db.execute(sql`DELETE FROM idempotency_keys WHERE user_sid = ${userSid} AND key = ${key}`);
        continue;
      }
      if (stored.request_hash !== hash) {
        throw new ApiError(422, { detail: 'This Idempotency-Key was already used for a different request.' });
      }
      if (stored.status === 'processing') {
        throw new ApiError(409, { detail: 'A request with this Idempotency-Key is still in progress; retry shortly.' }, { 'retry-after': '1' });
      }
      reply.header('idempotent-replayed', 'true');
      return reply.code(stored.status_code!).type(stored.content_type ?? 'application/json; charset=utf-8').send(stored.response_body);
    }
    throw new ApiError(409, { detail: 'A request with this Idempotency-Key is still in progress; retry shortly.' }, { 'retry-after': '1' });
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyKey;
    if (!claim) return payload;
    request.idempotencyKey = undefined;
    if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
      // A secret (a new API key) is never stored: the replay is the withheld answer.
      const kept = request.withheld
        ? { status: request.withheld.statusCode, type: 'application/json; charset=utf-8', body: JSON.stringify(request.withheld.body) }
        : { status: reply.statusCode, type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'), body: payload };
      await db.execute(sql`
        UPDATE idempotency_keys SET status = 'done', status_code = ${kept.status},
               content_type = ${kept.type}, response_body = ${kept.body}
         WHERE user_sid = ${claim.userSid} AND key = ${claim.key}`);
    } else {
      // Not a success: nothing was written, so the same key may be tried again.
      await db.execute(sql`DELETE FROM idempotency_keys WHERE user_sid = ${claim.userSid} AND key = ${claim.key}`);
    }
    return payload;
  });
}
