// Consent before mail (issue 21, point 6; docs/decisions.md, "Consent before mail"). Someone
// added to an organization is a member at once (the spec and its clients expect that), but the
// organization mails them nothing but the one invitation until they accept it: by the
// invitation's link (the password it sets, or the accept page), or the app's prompt. Anyone may
// leave an organization, its last active Admin excepted.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import { actorOf } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { query, type Db } from '../../db/client.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { DetailError, FieldErrors, Sid } from '../../core/schemas.js';
import { hashSecret } from '../../core/ids.js';
import { countActiveAdmins } from './repository.js';
import { logActivities, personnelName } from '../activities/log.js';

const LAST_ADMIN = 'You are the last active administrator of this organization: make another member an administrator before you leave.';

const OrganizationRef = Type.Object({ sid: Sid, name: Type.String() }, { title: 'OrganizationRef' });
const ConsentAnswer = Type.Object({ detail: Type.String(), organization: OrganizationRef }, { title: 'ConsentAnswer' });
const Invitation = Type.Object({
  personnel_sid: Sid,
  organization: OrganizationRef,
  invited_by: Type.Union([Type.String(), Type.Null()], { description: 'the name of who added the person (null: unknown)' }),
}, { title: 'Invitation' });
const InvitationList = Type.Object({ results: Type.Array(Invitation) }, { title: 'InvitationList' });
const TagInvitation = Type.Object({
  email: Type.String(),
  organization: OrganizationRef,
  invited_by: Type.Union([Type.String(), Type.Null()]),
}, { title: 'TagInvitation' });
const SidParams = Type.Object({ sid: Sid });
const TagQuery = Type.Object({ tag: Type.String({ minLength: 1, maxLength: 512 }) });

// The inviter's name: their own record in that organization, else their account's, else their address.
const INVITER = sql`(SELECT coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email) FROM users u WHERE u.sid = p.invited_by)`;

interface OwnRecord {
  sid: string; organization_sid: string; organization_name: string; is_administrator: boolean; is_archived: boolean; active: boolean;
  first_name: string; last_name: string; email: string;
}

/** The caller's own personnel record `sid`, locked with its organization (404 when it is not theirs). */
async function ownRecord(tx: Db, actor: Actor, sid: string): Promise<OwnRecord> {
  await tx.execute(sql`SELECT 1 FROM organizations WHERE sid = (SELECT organization_sid FROM personnel WHERE sid = ${sid}) FOR UPDATE`);
  const [row] = await query<OwnRecord>(tx, sql`
    SELECT p.sid, p.organization_sid, o.name AS organization_name, p.is_administrator, p.is_archived, p.first_name, p.last_name, p.email,
           (NOT p.is_archived AND (p.date_end IS NULL OR p.date_end >= CURRENT_DATE)) AS active
      FROM personnel p JOIN organizations o ON o.sid = p.organization_sid
     WHERE p.sid = ${sid} AND p.user_sid = ${actor.userSid}
       FOR UPDATE OF p`);
  if (!row) throw errors.notFound();
  return row;
}

/** Accepts the organization of the caller's record `sid`: from now on it may mail them. */
export async function acceptMembership(ctx: AppContext, actor: Actor, sid: string) {
  return ctx.db.transaction(async (tx) => {
    const row = await ownRecord(tx, actor, sid);
    if (!row.active) throw errors.field('sid', 'You are no longer a member of this organization: ask one of its administrators to add you again.');
    await tx.execute(sql`UPDATE personnel SET date_accepted = coalesce(date_accepted, now()) WHERE sid = ${sid}`);
    return { detail: `You joined ${row.organization_name}.`, organization: { sid: row.organization_sid, name: row.organization_name } };
  });
}

/**
 * Leaves the organization of the caller's record `sid`: the record is archived, no longer an
 * Admin's and no longer accepted (an Admin who makes it active again gives access, never mail).
 * The last active Admin cannot leave (400).
 */
export async function leaveOrganization(ctx: AppContext, actor: Actor, sid: string) {
  return ctx.db.transaction(async (tx) => {
    const row = await ownRecord(tx, actor, sid);
    await tx.execute(sql`UPDATE personnel SET is_archived = true, is_administrator = false, date_accepted = NULL,
      updated_by = ${actor.userSid}, date_updated = now() WHERE sid = ${sid}`);
    if (row.is_administrator && row.active && (await countActiveAdmins(tx, row.organization_sid)) === 0) throw errors.field('sid', LAST_ADMIN);
    const field = [row.is_administrator ? 'is_administrator' : null, row.is_archived ? null : 'is_archived'].filter(Boolean).join(', ');
    if (field) {
      await logActivities(tx, [{ organizationSid: row.organization_sid, userSid: actor.userSid, model: 'personnel', objectSid: sid, target: personnelName(row), action: 'Updated', field }]);
    }
    return { detail: `You left ${row.organization_name}.`, organization: { sid: row.organization_sid, name: row.organization_name } };
  });
}

/** The caller's memberships not accepted yet (active ones), newest first: what the app asks about. */
export async function pendingInvitations(db: Db, actor: Actor) {
  return query<{ personnel_sid: string; organization: { sid: string; name: string }; invited_by: string | null }>(db, sql`
    SELECT p.sid AS personnel_sid, json_build_object('sid', o.sid, 'name', o.name) AS organization, ${INVITER} AS invited_by
      FROM personnel p JOIN organizations o ON o.sid = p.organization_sid
     WHERE p.user_sid = ${actor.userSid} AND p.date_accepted IS NULL
       AND NOT p.is_archived AND (p.date_end IS NULL OR p.date_end >= CURRENT_DATE)
     ORDER BY p.date_created DESC, p.sid
     LIMIT 100`);
}

/** The invitation an unused invitation tag is for (400 on `tag` for any other tag): the password page names it. */
export async function invitationOfTag(db: Db, tag: string) {
  const [found] = await query<{ email: string; organization: { sid: string; name: string }; invited_by: string | null }>(db, sql`
    SELECT u.email, json_build_object('sid', o.sid, 'name', o.name) AS organization, ${INVITER} AS invited_by
      FROM password_resets r
      JOIN users u ON u.sid = r.user_sid
      JOIN personnel p ON p.sid = r.personnel_sid AND p.user_sid = r.user_sid
      JOIN organizations o ON o.sid = p.organization_sid
     WHERE r.tag_hash = ${hashSecret(tag)} AND r.used_at IS NULL AND r.expires_at > now()`);
  if (!found) throw errors.field('tag', 'No open invitation has this tag: it was used, has expired, or is a password reset.');
  return found;
}

export function registerConsent(app: FastifyInstance, ctx: AppContext): void {
  const tags = ['personnel'];
  app.post('/organizations/personnel/detail/:sid/accept/', {
    config: { operationId: 'acceptOrganization' },
    schema: {
      tags, summary: 'Accept the organization of your own personnel record: from now on it may mail you',
      description: 'Someone added to an organization is a member at once, but the organization mails them nothing (no notification '
        + 'mail, no digest) but the one invitation until they accept it here, by the invitation\'s link, or by setting their password with '
        + 'an invitation\'s tag. Only on one\'s own record (404 otherwise); 400 for a record that is archived or ended.',
      params: SidParams,
      response: { 200: ConsentAnswer, 400: FieldErrors, 401: DetailError, 404: DetailError },
    },
  }, async (request) => acceptMembership(ctx, actorOf(request), (request.params as { sid: string }).sid));

  app.post('/organizations/personnel/detail/:sid/leave/', {
    config: { operationId: 'leaveOrganization' },
    schema: {
      tags, summary: 'Leave the organization of your own personnel record',
      description: 'Anyone may leave: the record is archived (it gives no access), is no Admin\'s any more and is no longer accepted, so '
        + 'the organization mails nothing even if an Admin makes it active again. The last active Admin cannot leave (400 on `sid`). '
        + 'Only on one\'s own record (404 otherwise).',
      params: SidParams,
      response: { 200: ConsentAnswer, 400: FieldErrors, 401: DetailError, 404: DetailError },
    },
  }, async (request) => leaveOrganization(ctx, actorOf(request), (request.params as { sid: string }).sid));

  app.get('/accounts/invitations/', {
    config: { operationId: 'listInvitations' },
    schema: {
      tags: ['accounts'], summary: 'Your memberships not accepted yet (at most 100, newest first)',
      description: 'The organizations that added the caller and that the caller has not accepted (POST …/accept/) nor left (POST …/leave/).',
      response: { 200: InvitationList, 401: DetailError },
    },
  }, async (request) => ({ results: await pendingInvitations(ctx.db, actorOf(request)) }));

  app.get('/accounts/invitation/', {
    config: { auth: false, operationId: 'showInvitation' },
    schema: {
      tags: ['accounts'], summary: 'The invitation an emailed invitation tag is for', security: [], querystring: TagQuery,
      description: 'For the page where an invitee chooses a password: the address, the organization and who invited them. 400 on `tag` '
        + 'for a tag that is used, expired, or a password reset\'s.',
      response: { 200: TagInvitation, 400: FieldErrors },
    },
  }, async (request) => invitationOfTag(ctx.db, (request.query as { tag: string }).tag));

  refuseOtherMethods(app, '/organizations/personnel/detail/:sid/accept/', ['POST']);
  refuseOtherMethods(app, '/organizations/personnel/detail/:sid/leave/', ['POST']);
  refuseOtherMethods(app, '/accounts/invitations/', ['GET']);
  refuseOtherMethods(app, '/accounts/invitation/', ['GET']);
}
