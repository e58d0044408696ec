// API keys a user creates, lists and deletes for themself:
//   /accounts/apikey/list/user/{user_sid}/{serializer}/  and  /accounts/apikey/detail/{sid}/
// Creating a key, and deleting another one than the caller's own, need a signed-in session
// (core/auth.ts requireSession): an API key may list the keys and retire itself, but never
// make another key (which would outlive its own deletion) nor delete the owner's others.
import type { FastifyInstance } from 'fastify';
import { and, eq, desc, count } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { credentials } from '../../db/schema.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel, userLevel } from '../../core/levels.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { isoTimestamp } from '../../core/sql.js';
import { requireSession, type Actor } from '../../core/auth.js';

/** Whether the caller may delete the key `sid`: from a session any of theirs, with an API key only that key. */
const mayDelete = (actor: Actor, sid: string) => actor.credentialKind === 'session' || actor.credentialSid === sid;
import { ApiKeyBody, ApiKeyCreated, ApiKeyShapes } from './schemas.js';
import { issueCredential } from './service.js';
import { withholdFromReplay } from '../../core/idempotency.js';

const columns = {
  sid: credentials.sid,
  name: credentials.name,
  date_created: isoTimestamp(credentials.dateCreated),
  last_used: isoTimestamp(credentials.lastUsedAt),
};
const ownKeys = (userSid: string) => and(eq(credentials.userSid, userSid), eq(credentials.kind, 'apikey'));

async function findOwnKey(ctx: AppContext, actor: Actor, sid: string) {
  if (!isSid(sid)) throw errors.notFound();
  const [row] = await ctx.db.select(columns).from(credentials).where(and(ownKeys(actor.userSid), eq(credentials.sid, sid)));
  if (!row) throw errors.notFound();
  return { ...row, change_permission: mayDelete(actor, row.sid) };
}

export function registerApiKeys(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/accounts/apikey',
    tag: 'accounts',
    // level=organization is how Labii's SDK (APIKey) asks: the caller's own keys all the same (a key is not scoped to an organization).
    levels: { user: userLevel, organization: organizationLevel },
    shapes: ApiKeyShapes,
    get: {
      summary: "List the caller's API keys",
      description: 'Only the owner (level=user with their own user sid) lists their keys; the key itself is never shown again. '
        + 'level=organization (Labii\'s SDK) with an organization the caller is active personnel of answers the same: the caller\'s '
        + 'own keys, which are the account\'s, not the organization\'s.',
      addPermission: (scope) => scope.actor.credentialKind === 'session',
      count: async (scope) => (await ctx.db.select({ n: count() }).from(credentials).where(ownKeys(scope.actor.userSid)))[0].n,
      rows: async (scope, _query, _serializer, page) => {
        const rows = await ctx.db.select(columns).from(credentials).where(ownKeys(scope.actor.userSid))
          .orderBy(desc(credentials.dateCreated), credentials.sid).limit(page.limit).offset(page.offset);
        return rows.map((r) => ({ ...r, change_permission: mayDelete(scope.actor, r.sid) }));
      },
    },
    post: {
      summary: 'Create an API key',
      description: 'Answers 201 {sid, name, key, date_created}; the key is shown only in this answer. Send it as `Authorization: Bearer <key>`. '
        + 'A retry with the same `Idempotency-Key` creates no second key and answers 409 naming the key created (the key itself is never stored). '
        + 'Needs a signed-in session: an API key gets 403.',
      body: ApiKeyBody,
      allowed: (scope) => {
        requireSession(scope.actor, 'create API keys');
        return true;
      },
      response: () => ApiKeyCreated,
      create: async (scope, body, _query, _serializer, request) => {
        const { secret, row } = await issueCredential(ctx.db, scope.actor.userSid, 'apikey', body.name);
        withholdFromReplay(request, 409, `The API key ${row.sid} was already created by a request with this Idempotency-Key; `
          + 'its key was shown only in that answer and is not kept. If that answer was lost, delete the key '
          + `(DELETE /accounts/apikey/detail/${row.sid}/) and create a new one.`);
        const [created] = await ctx.db.select({ date_created: columns.date_created }).from(credentials).where(eq(credentials.sid, row.sid));
        return { sid: row.sid, name: row.name, key: secret, date_created: created.date_created };
      },
    },
  });

  defineDetail(app, ctx, {
    path: '/accounts/apikey',
    tag: 'accounts',
    shape: ApiKeyShapes.detail,
    get: { summary: 'One of the caller\'s API keys', handler: (actor, sid) => findOwnKey(ctx, actor, sid) },
    delete: {
      summary: 'Delete one of the caller\'s API keys; it stops authenticating at once (an API key may delete only itself: 403 otherwise)',
      handler: async (actor, sid) => {
        await findOwnKey(ctx, actor, sid);
        if (!mayDelete(actor, sid)) throw errors.sessionRequired('delete another API key');
        await ctx.db.delete(credentials).where(and(ownKeys(actor.userSid), eq(credentials.sid, sid)));
      },
    },
  });
}
