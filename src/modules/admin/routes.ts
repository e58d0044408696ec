// The instance administrators' API (docs/decisions.md, "The instance's administrators"):
// every organization (and granting it credits), every account (disable, enable, mail a new
// proof), the settings safe to change at run time, the outbox's health. Lists take the
// caller's own user sid at level user, like API keys; anyone but an instance administrator
// gets 403.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { actorOf } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { defineDetail, defineList, refuseOtherMethods, type LevelResolver, type Scope } from '../../core/resource.js';
import { userLevel } from '../../core/levels.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { DetailError, ErrorResponses, FieldErrors } from '../../core/schemas.js';
import { users } from '../../db/schema.js';
import { countLedger, LedgerShapes, pageLedger } from '../credits/ledger.js';
import { grantCredits } from '../credits/service.js';
import { resendProof } from '../accounts/email-proof.js';
import { mayMailAccount } from '../accounts/service.js';
import { mayAdminister, requireInstanceAdmin } from './admins.js';
import {
  countAccounts, countOrganizations, findAccount, findOrganization, outboxHealth, pageAccounts, pageOrganizations,
  serializeAdminOrganization, setAccountActive, type AdminAccountRow,
} from './repository.js';
import {
  AdminAccountPatch, AdminAccountQuery, AdminAccountShapes, AdminOrganizationQuery, AdminOrganizationShapes, CreditGrant,
  InstanceSettings, InstanceSettingsPatch, OutboxHealth,
} from './schemas.js';
import { changeSettings, describeSettings, type SettingsChange } from './settings.js';
import { withTotal } from '../../core/pagination.js';
import type { Actor } from '../../core/auth.js';

const tag = 'admin';
const isAdmin = (scope: Scope) => mayAdminister(scope.actor);

/** level=organization for an instance administrator: any organization of the instance (406 for an unknown sid). */
interface InstanceOrganizationScope extends Scope {
  organization: { sid: string; name: string };
}
const instanceOrganizationLevel: LevelResolver<InstanceOrganizationScope> = async (ctx, actor, sid) => {
  const organization = isSid(sid) ? await findOrganization(ctx.db, sid) : undefined;
  if (!organization) throw errors.wrongId();
  return { level: 'organization', sid, actor, organization };
};

/** An account as an administrator sees it; they may disable or enable any but their own and other administrators'. */
function serializeAccount(row: AdminAccountRow, serializer: 'name' | 'list' | 'detail', actor: Actor) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  return { ...row, change_permission: row.sid !== actor.userSid && !row.is_instance_admin };
}

const AMOUNT = /^\d{1,12}(\.\d{1,2})?$/;

export function registerAdmin(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/admin/organization',
    tag,
    levels: { user: userLevel },
    shapes: AdminOrganizationShapes,
    get: {
      summary: 'Every organization of the instance, newest first (instance administrators)',
      description: 'The sid is the caller\'s own user sid. `search`: only those whose name contains the text.',
      query: AdminOrganizationQuery,
      allowed: isAdmin,
      addPermission: () => false,
      counted: true,
      count: (_scope, q) => countOrganizations(ctx.db, q.search),
      rows: async (_scope, q, serializer, page) => {
        const found = await pageOrganizations(ctx.db, q.search, page.limit, page.offset);
        return withTotal(found.map((row) => serializeAdminOrganization(row, serializer)), found);
      },
    },
  });

  defineList(app, ctx, {
    path: '/admin/credit',
    tag,
    levels: { organization: instanceOrganizationLevel },
    shapes: LedgerShapes,
    get: {
      summary: "An organization's credit ledger, newest first (instance administrators)",
      allowed: isAdmin,
      addPermission: isAdmin,
      count: (scope) => countLedger(ctx.db, scope.organization.sid),
      rows: (scope, _q, serializer, page) => pageLedger(ctx.db, scope.organization.sid, serializer, page),
    },
    post: {
      summary: 'Grant credits to an organization (instance administrators)',
      description: 'Adds `amount` to the organization\'s credits and answers the ledger entry, which names the administrator '
        + '(`user`, and "credits granted by …" with the note). 400 on `amount` unless it is above 0 with at most 2 decimals, '
        + 'or when the balance would pass 999999999999.99.',
      body: CreditGrant,
      allowed: isAdmin,
      create: async (scope, body, _q, serializer) => {
        const { amount, note } = body as { amount: string; note?: string };
        if (!AMOUNT.test(amount) || Number(amount) <= 0) throw errors.field('amount', 'Enter an amount above 0 like 25.00 (at most 2 decimals).');
        const { actor } = scope;
        const name = `${actor.firstName} ${actor.lastName}`.trim() || actor.email;
        const sid = await grantCredits(ctx.db, scope.organization.sid, amount, { sid: actor.userSid, name }, note?.trim() ?? '');
        if (!sid) throw errors.wrongId();
        return (await pageLedger(ctx.db, scope.organization.sid, serializer, { limit: 1, offset: 0 }, sid))[0];
      },
    },
  });

  defineList(app, ctx, {
    path: '/admin/account',
    tag,
    levels: { user: userLevel },
    shapes: AdminAccountShapes,
    get: {
      summary: 'Every account of the instance, newest first (instance administrators)',
      description: 'The sid is the caller\'s own user sid. `search`: only those whose name or email contains the text.',
      query: AdminAccountQuery,
      allowed: isAdmin,
      addPermission: () => false,
      counted: true,
      count: (_scope, q) => countAccounts(ctx.db, q.search),
      rows: async (scope, q, serializer, page) => {
        const found = await pageAccounts(ctx.db, q.search, page.limit, page.offset);
        return withTotal(found.map((row) => serializeAccount(row, serializer, scope.actor)), found);
      },
    },
  });

  const loadAccount = async (actor: Actor, sid: string) => {
    requireInstanceAdmin(actor);
    const row = isSid(sid) ? await findAccount(ctx.db, sid) : undefined;
    if (!row) throw errors.notFound();
    return row;
  };
  defineDetail(app, ctx, {
    path: '/admin/account',
    lock: lockOwnRow(users),
    tag,
    shape: AdminAccountShapes.detail,
    get: {
      summary: 'One account (instance administrators)',
      handler: async (actor, sid) => serializeAccount(await loadAccount(actor, sid), 'detail', actor),
    },
    patch: {
      summary: 'Disable or enable an account (instance administrators)',
      description: 'Disabling ends the account\'s sessions at once (its open streams within seconds); its API keys do not work '
        + 'while it stays disabled; it cannot sign in. Not one\'s own account, nor another administrator\'s (revoke that with the CLI first): 400 on is_active.',
      body: AdminAccountPatch,
      handler: async (actor, sid, body) => {
        const row = await loadAccount(actor, sid);
        const { is_active } = body as { is_active: boolean };
        if (!is_active && row.sid === actor.userSid) throw errors.field('is_active', 'You cannot disable your own account.');
        if (!is_active && row.is_instance_admin) {
          throw errors.field('is_active', 'This account administers the instance: revoke that first (npm run cli -- instance-admin --revoke <email>).');
        }
        if (row.is_active !== is_active) await setAccountActive(ctx.db, row.sid, is_active);
        return serializeAccount((await findAccount(ctx.db, row.sid))!, 'detail', actor);
      },
    },
  });

  const resendUrl = '/admin/account/detail/:sid/resendproof/';
  app.post(resendUrl, {
    schema: {
      tags: [tag], summary: 'Mail an account a new link that proves its email (instance administrators)',
      description: 'Answers {"detail": "Email already verified."} for a proven account; 429 when the address got too many account emails this hour.',
      params: Type.Object({ sid: Type.String({ description: 'the sid of the account' }) }),
      response: { 200: Type.Object({ detail: Type.String() }), ...ErrorResponses, 429: DetailError },
    },
  }, async (request) => {
    const row = await loadAccount(actorOf(request), (request.params as { sid: string }).sid);
    const sent = await resendProof(ctx, { userSid: row.sid, email: row.email, firstName: row.first_name }, mayMailAccount);
    return { detail: sent ? 'Verification e-mail has been sent.' : 'Email already verified.' };
  });
  refuseOtherMethods(app, resendUrl, ['POST']);

  const settingsUrl = '/admin/settings/';
  app.get(settingsUrl, {
    schema: {
      tags: [tag], summary: 'The settings an administrator may change while the service runs (instance administrators)',
      description: 'Each: the value in force, the environment variable\'s value, whether an administrator replaced it, and what it means.',
      response: { 200: InstanceSettings, 401: DetailError, 403: DetailError },
    },
  }, async (request) => {
    requireInstanceAdmin(actorOf(request));
    return describeSettings(ctx);
  });
  app.patch(settingsUrl, {
    schema: {
      tags: [tag], summary: 'Change settings while the service runs (instance administrators)',
      description: 'A value replaces the environment variable\'s for every process at its next use; null goes back to the '
        + 'environment\'s value. initial_credits: a decimal amount (400 otherwise).',
      body: InstanceSettingsPatch,
      response: { 200: InstanceSettings, 400: FieldErrors, 401: DetailError, 403: DetailError },
    },
  }, async (request) => {
    const actor = requireInstanceAdmin(actorOf(request));
    return changeSettings(ctx, actor, request.body as SettingsChange);
  });
  refuseOtherMethods(app, settingsUrl, ['GET', 'PATCH']);

  const outboxUrl = '/admin/outbox/';
  app.get(outboxUrl, {
    schema: {
      tags: [tag], summary: "The mail outbox's health (instance administrators)",
      description: 'Messages waiting, being retried and given up, the age of the oldest waiting, those sent in the last hour, and the newest failure.',
      response: { 200: OutboxHealth, 401: DetailError, 403: DetailError },
    },
  }, async (request) => {
    requireInstanceAdmin(actorOf(request));
    return outboxHealth(ctx.db);
  });
  refuseOtherMethods(app, outboxUrl, ['GET']);
}
