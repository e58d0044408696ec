import type { FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import { query, type Db } from '../db/client.js';
import { hashSecret, isSid } from './ids.js';
import { ApiError, errors } from './errors.js';
import type { MembershipRow } from './roles.js';
import { currentPersonnel } from './rules.js';

/** The signed-in caller of a request. */
export interface Actor {
  userSid: string;
  email: string;
  firstName: string;
  lastName: string;
  credentialSid: string;
  credentialKind: 'session' | 'apikey';
  /** Whether the account has proved its sign-in email (unproven accounts may only prove it). */
  emailVerified: boolean;
  /** Whether the account administers the whole instance (modules/admin). */
  instanceAdmin: boolean;
  /**
   * The caller's standing in an organization read with the credential, in the same
   * query (list paths at level organization, and a table's organization: `table` below):
   * findMembership answers from it.
   */
  standing?: { organizationSid: string; row: MembershipRow | undefined };
  /**
   * The table a path at level table names, read with the credential (and the standing in
   * its organization): null when there is no such table. core/levels.ts tableLevel answers from it.
   */
  table?: { sid: string; found: { name: string; organizationSid: string } | null };
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyContextConfig {
    /** false for the few routes anyone may call (health, signup, auth …). */
    auth?: boolean;
    /** true for the few routes an account whose email is not proved yet may call (checktoken, logout, resend the proof). */
    unproven?: boolean;
    /**
     * true for a GET that changes state (GET /accounts/logout/, kept for the design's
     * scripts): signed in with the session cookie, it needs the header a write needs.
     */
    changesState?: boolean;
    /** 'table': the path's :sid is a table; the credential's query reads it and the caller's standing in its organization. */
    standingOf?: 'table';
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
  email_verified: boolean;
  is_instance_admin: boolean;
}

type StandingRow = { [K in keyof MembershipRow]: MembershipRow[K] | null };

/** Where a request's standing is read with its credential: an organization, or a table's organization. */
export type StandingIn = { organization: string } | { table: string };

/**
 * The actor of a credential, or a 401. Session tokens expire after `idleMinutes`
 * without use; API keys last until their owner deletes them. Use is recorded at most
 * once a minute, so a read does not become a write. With `standingIn`, the same query
 * reads the caller's standing in that organization (Actor.standing) or in the table's
 * organization (and the table: Actor.table), so a list at level organization or table
 * costs one round trip for who is asking, not two. An account whose email is not proved
 * yet gets 403 unless `allowUnproven` (design: an address counts only once its owner has
 * proved it; so does the account).
 */
export async function authenticate(
  db: Db, credential: string | undefined, idleMinutes: number, standingIn?: StandingIn, allowUnproven = false,
): Promise<Actor> {
  if (credential === undefined) throw errors.notAuthenticated();
  if (credential.length > 512) throw errors.invalidToken();
  const keyHash = hashSecret(credential);
  const organizationSid = standingIn && 'organization' in standingIn && isSid(standingIn.organization) ? standingIn.organization : undefined;
  const tableSid = standingIn && 'table' in standingIn && isSid(standingIn.table) ? standingIn.table : undefined;
  // The organization of the standing: the one named, or the table's (and the table's name with it).
  const byTable = tableSid !== undefined;
  const org = byTable ? sql`(SELECT organization_sid FROM record_tables WHERE sid = ${tableSid})` : sql`${organizationSid ?? null}`;
  // db/functions/records_credential.sql: one generic plan per connection, not one per request.
  const [row] = await query<CredentialRow & StandingRow & { table_name?: string | null }>(db, sql`
    SELECT f.user_sid, f.email, f.first_name, f.last_name, f.sid, f.kind, f.stale, f.email_verified, f.is_instance_admin,
           f.organization_sid, f.organization_name, f.personnel_sid, f.is_administrator, f.is_archived, ${currentPersonnel.sql('f')} AS is_current
           ${byTable ? sql`, t.name AS table_name` : sql``}
      FROM records_credential(${keyHash}, ${idleMinutes}, ${org}) f
      ${byTable ? sql`LEFT JOIN record_tables t ON t.sid = ${tableSid}` : sql``}`);
  if (!row) throw errors.invalidToken();
  if (!row.email_verified && !allowUnproven) throw errors.emailNotVerified();
  if (row.stale) await db.execute(sql`UPDATE credentials SET last_used_at = now() WHERE key_hash = ${keyHash}`);
  const actor: Actor = {
    userSid: row.user_sid,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    credentialSid: row.sid,
    credentialKind: row.kind,
    emailVerified: row.email_verified,
    instanceAdmin: row.is_instance_admin,
  };
  if (organizationSid !== undefined) {
    actor.standing = {
      organizationSid,
      row: row.organization_sid === null ? undefined : (row as MembershipRow),
    };
  }
  if (byTable) {
    // No such table: no organization, no standing. Else the standing in its organization, as above.
    actor.table = { sid: tableSid, found: row.organization_sid === null ? null : { name: row.table_name!, organizationSid: row.organization_sid } };
    if (row.organization_sid !== null) actor.standing = { organizationSid: row.organization_sid, row: row as MembershipRow };
  }
  return actor;
}

/**
 * Refuses (403) an API key where the account's own credentials are managed: creating or
 * deleting API keys, changing the password, ending sessions. A key lives long and sits in
 * scripts, so whoever finds one must not turn it into lasting control of the account;
 * these need a signed-in session (the password, just now). `what`: "create API keys" …
 */
export function requireSession(actor: Actor, what: string): void {
  if (actor.credentialKind !== 'session') throw errors.sessionRequired(what);
}

/** The actor of an authenticated route (the auth hook has run). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw errors.notAuthenticated();
  return request.actor;
}

/** The browser session's cookie (POST /accounts/session/ sets it; HttpOnly, SameSite=Strict). */
export const SESSION_COOKIE = 'records_session';
/** The header (and its value) a state-changing request authenticated by the cookie must carry. */
export const WEB_CLIENT_HEADER = 'x-requested-with';
export const WEB_CLIENT_VALUE = 'records-web';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a request changes state: an unsafe method, or a route that says so (config.changesState). */
function changesState(request: FastifyRequest): boolean {
  return UNSAFE_METHODS.has(request.method) || request.routeOptions?.config?.changesState === true;
}

/** The session cookie's value, if the request carries one (parsed by @fastify/cookie). */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const value = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies?.[SESSION_COOKIE];
  return value && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * The credential of a request and where it came from: a token header wins; otherwise the
 * browser session's cookie. A state-changing request authenticated by the cookie (an
 * unsafe method, or a GET whose route changes state: logout) must carry
 * `X-Requested-With: records-web`, which a cross-site form, link or image cannot send
 * (403 otherwise), so the cookie alone never changes anything.
 */
export function requestCredential(request: FastifyRequest): { credential: string | undefined; viaCookie: boolean } {
  const header = credentialOf(request);
  if (header !== undefined) return { credential: header, viaCookie: false };
  const cookie = sessionCookieOf(request);
  if (cookie === undefined) return { credential: undefined, viaCookie: false };
  if (changesState(request) && request.headers[WEB_CLIENT_HEADER] !== WEB_CLIENT_VALUE) {
    throw new ApiError(403, {
      detail: `The header "X-Requested-With: ${WEB_CLIENT_VALUE}" is missing: a ${request.method} signed in with the session cookie must carry it.`,
    });
  }
  return { credential: cookie, viaCookie: true };
}
