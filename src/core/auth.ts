import type { FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import { query, type Db } from '../db/client.js';
import { hashSecret } from './ids.js';
import { errors } from './errors.js';

/** The signed-in caller of a request. */
export interface Actor {
  userSid: string;
  email: string;
  firstName: string;
  lastName: string;
  credentialSid: string;
  credentialKind: 'session' | 'apikey';
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyContextConfig {
    /** false for the few routes anyone may call (health, signup, auth …). */
    auth?: boolean;
  }
}

/**
 * The credential a request carries, from any of the three header forms:
 * `token: <t>` (the spec's), `Authorization: Token <t>` (existing SDKs) and
 * `Authorization: Bearer <key>` (API keys). Undefined when none is sent.
 */
export function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers.token;
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^(Token|Bearer)\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[2];
    if (authorization.trim() !== '') return authorization.trim();
  }
  return undefined;
}

interface CredentialRow {
  user_sid: string;
  email: string;
  first_name: string;
  last_name: string;
  sid: string;
  kind: 'session' | 'apikey';
  stale: boolean;
}

/**
 * The actor of a credential, or a 401. Session tokens expire after `idleMinutes`
 * without use; API keys last until their owner deletes them. Use is recorded at most
 * once a minute, so a read does not become a write.
 */
export async function authenticate(db: Db, credential: string | undefined, idleMinutes: number): Promise<Actor> {
  if (credential === undefined) throw errors.notAuthenticated();
  if (credential.length > 512) throw errors.invalidToken();
  const keyHash = hashSecret(credential);
  const [row] = await query<CredentialRow>(db, sql`
    SELECT u.sid AS user_sid, u.email, u.first_name, u.last_name, c.sid, c.kind,
           c.last_used_at < now() - interval '60 seconds' AS stale
      FROM credentials c JOIN users u ON u.sid = c.user_sid
     WHERE c.key_hash = ${keyHash} AND u.is_active
       AND (c.kind = 'apikey' OR c.last_used_at > now() - make_interval(mins => ${idleMinutes}))`);
  if (!row) throw errors.invalidToken();
  if (row.stale) await db.execute(sql`UPDATE credentials SET last_used_at = now() WHERE key_hash = ${keyHash}`);
  return {
    userSid: row.user_sid,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    credentialSid: row.sid,
    credentialKind: row.kind,
  };
}

/** The actor of an authenticated route (the auth hook has run). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw errors.notAuthenticated();
  return request.actor;
}
