// Command: change the commit message of a version (PATCH /tables/version/detail/{sid}/; spec: Version).
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../core/auth.js';
import type { Membership } from '../../../core/access.js';
import { permissions } from '../../../core/permissions.js';
import { errors } from '../../../core/errors.js';
import { isSid } from '../../../core/ids.js';
import { versions } from '../../../db/schema.js';
import { findVersion, type VersionRow } from '../../versions/repository.js';
import { lockRow } from '../lock.js';

/**
 * Sets a version's commit message (Project Admin, Edit) under its row's lock, the caller's
 * standing read with it: 404 for no such version or one the caller cannot read, 403 for an
 * Alumni or a role that may not change it. The commit is not part of the hash: no new version.
 */
export async function versionCommit(ctx: AppContext, actor: Actor, sid: string, body: { commit: string | null }): Promise<{ version: VersionRow; membership: Membership }> {
  if (!isSid(sid)) throw errors.notFound();
  return ctx.db.transaction(async (tx) => {
    const found = await lockRow(tx, actor, { version: sid });
    if (!found?.membership) throw errors.notFound();
    const { membership, projectRole } = found;
    if (membership.role === 'alumni') throw errors.forbidden();
    if (!permissions.version.read(membership, projectRole)) throw errors.notFound();
    if (!permissions.version.change(membership, projectRole)) throw errors.forbidden();
    await tx.update(versions).set({ commit: body.commit, dateUpdated: sql`now()` }).where(eq(versions.sid, sid));
    return { version: (await findVersion(tx, sid, membership.personnelSid))!, membership };
  });
}
