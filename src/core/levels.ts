// The levels a list path may name, each resolving its sid into a scope.
import { errors } from './errors.js';
import { requireOrganizationMember, type Membership } from './access.js';
import type { LevelResolver, Scope } from './resource.js';

/** level=organization: the caller is an active member (Admin or Member) of the organization. */
export interface OrganizationScope extends Scope {
  membership: Membership;
}

export const organizationLevel: LevelResolver<OrganizationScope> = async (ctx, actor, sid) => ({
  level: 'organization',
  sid,
  actor,
  membership: await requireOrganizationMember(ctx.db, actor, sid),
});

/** level=user: the sid is the caller's own user sid (anyone else's is refused). */
export const userLevel: LevelResolver<Scope> = async (_ctx, actor, sid) => {
  if (sid !== actor.userSid) throw errors.forbidden();
  return { level: 'user', sid, actor };
};
