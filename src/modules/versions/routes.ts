// Versions (spec: Version, Versioning): read, and the commit message changed; never created,
// replaced or deleted through the API (405).
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import { defineDetail, defineList, etagOf } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { requireRecordAccess } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { versions } from '../../db/schema.js';
import { VersionData, VersionDetail, VersionListQuery, VersionPatch, VersionPatched, VersionShapes } from './schemas.js';
import { countVersions, findVersion, pageVersions } from './repository.js';
import { withTotal } from '../../core/pagination.js';
import { queryBool } from '../../core/schemas.js';
import { serializeVersion, serializeVersionDetail } from './serializers.js';
import { lockRow } from '../records/lock.js';
import { versionCommit } from '../records/commands/version-commit.js';
import { rowRecordBytes } from '../../core/pagination.js';

async function readableVersion(ctx: AppContext, actor: Actor, sid: string) {
  if (!isSid(sid)) throw errors.notFound();
  const [owner] = await ctx.db.select({ org: versions.organizationSid }).from(versions).where(eq(versions.sid, sid));
  if (!owner) throw errors.notFound();
  const membership = await requireRecordAccess(ctx.db, actor, owner.org);
  const version = (await findVersion(ctx.db, sid, membership.personnelSid))!;
  if (!permissions.version.read(membership, version.permission)) throw errors.notFound();
  return { version, membership };
}

export function registerVersions(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/tables/version',
    tag: 'versions',
    levels: { organization: organizationLevel },
    shapes: VersionShapes,
    get: {
      summary: 'List versions (Admin, Project Admin, Edit, View)',
      description: 'With `row__sid`, the versions of that row in version order (none when the caller cannot read the row); '
        + 'without, every version the caller may read, oldest first. Serializer `detail` gives the fuller list shape with `data`. '
        + 'With `dataonly=true` each result is only the version\'s row data object. `is_valid` is recomputed from the stored data.',
      query: VersionListQuery,
      addPermission: () => false,
      // Every shape reads each version's data (is_valid recomputes its hash): pages are read and written a few records at a time (core/answer-stream.ts).
      recordBytes: () => rowRecordBytes(ctx.config),
      raw: (query) => queryBool(query.dataonly),
      rawShape: VersionData,
      counted: true,
      count: (scope, query) => countVersions(ctx.db, scope.membership.organizationSid, scope.membership, query.row__sid),
      rows: async (scope, query, serializer, page) => {
        const found = await pageVersions(ctx.db, scope.membership.organizationSid, scope.membership, query.row__sid, page.limit, page.offset, page.after);
        // A row's versions are read by key: the next read of the page starts after the last version read.
        const cursor = query.row__sid && found.length ? found[found.length - 1].version : undefined;
        const results = queryBool(query.dataonly) ? found.map((v) => v.data) : found.map((v) => serializeVersion(v, serializer, scope.membership));
        return Object.assign(withTotal(results, found), { cursor });
      },
    },
  });

  defineDetail(app, ctx, {
    path: '/tables/version',
    lock: (tx, sid, actor) => lockRow(tx, actor, { version: sid }),
    tag: 'versions',
    shape: VersionDetail,
    // The PATCH answer adds `commit` to the detail shape: its ETag is the detail shape's, so
    // it matches a GET of the same version (date_updated changes with the commit).
    etag: (record) => {
      const { commit: _commit, ...detail } = record as { commit?: unknown };
      return etagOf(detail);
    },
    get: {
      summary: 'One version, with its data (Admin, Project Admin, Edit, View)',
      handler: async (actor, sid) => {
        const { version, membership } = await readableVersion(ctx, actor, sid);
        return serializeVersionDetail(version, membership);
      },
    },
    patch: {
      summary: 'Change the commit message of a version (Project Admin, Edit)',
      description: 'Only `commit` can change; it is not part of the hash. Any other field is refused (400). Answers the detail shape with the `commit` it set.',
      body: VersionPatch,
      response: VersionPatched,
      handler: async (actor, sid, body) => {
        const { version, membership } = await versionCommit(ctx, actor, sid, body);
        return { ...serializeVersionDetail(version, membership), commit: body.commit };
      },
    },
  });
}
