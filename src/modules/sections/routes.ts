// Sections (Labii's Section, /tables/section/): a row's notebook pages.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { withTotal, rowRecordBytes } from '../../core/pagination.js';
import { lockRow, readRow } from '../records/lock.js';
import { SectionCreate, SectionCreateQuery, SectionListQuery, SectionPatch, SectionShapes } from './schemas.js';
import { countSections, pageSections } from './repository.js';
import { serializeSection } from './serializers.js';
import { readableSection, sectionWords } from './service.js';
import { sectionCreate } from '../records/commands/section-create.js';
import { sectionUpdate } from '../records/commands/section-update.js';
import { sectionDelete } from '../records/commands/section-delete.js';

export function registerSections(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/tables/section',
    tag: 'sections',
    levels: { organization: organizationLevel },
    shapes: SectionShapes,
    get: {
      summary: 'List sections (Admin, Project Admin, Edit, View: whoever reads their row)',
      description: "With `row__sid`, that row's sections in order; with `table__sid`, the sections of that table's rows; "
        + 'without, every section the caller may read, oldest first. add_permission: whether the caller may add a section to row__sid.',
      query: SectionListQuery,
      recordBytes: (serializer) => (serializer === 'detail' ? rowRecordBytes(ctx.config) : undefined),
      addPermission: async (scope, query) => {
        if (!query.row__sid) return false;
        const access = await readRow(ctx.db, scope.actor, { row: query.row__sid });
        if (!access || access.row.organization_sid !== scope.membership.organizationSid) return false;
        return permissions.section.write(scope.membership, access.projectRole) && !access.row.is_archived;
      },
      counted: true,
      count: (scope, query) => countSections(ctx.db, scope.membership.organizationSid, scope.membership, query),
      rows: async (scope, query, serializer, page) => {
        const found = await pageSections(ctx.db, scope.membership.organizationSid, scope.membership, query, page.limit, page.offset);
        return withTotal(found.map((s) => serializeSection(s, serializer, scope.membership)), found);
      },
    },
    post: {
      summary: 'Add a section to a row (Project Admin, Edit; not to an archived row, nor a locked one)',
      description: 'Query `row__sid` (or `row` in the body). Body {name, description, widget: {sid} or widget__sid, order, data}: '
        + '`data` is the content (any JSON: a rich-text document, or a string). The row gets a new version holding its sections.',
      query: SectionCreateQuery,
      body: SectionCreate,
      allowed: () => true,
      create: async (scope, body, query, serializer) => {
        const section = await sectionWords(() => sectionCreate(ctx, scope.membership, scope.actor, query.row__sid, body));
        return serializeSection(section, serializer, scope.membership);
      },
    },
  });

  defineDetail(app, ctx, {
    path: '/tables/section',
    lock: (tx, sid, actor) => lockRow(tx, actor, { section: sid }),
    tag: 'sections',
    shape: SectionShapes.detail,
    get: {
      summary: 'One section, with its content',
      description: '404 when the caller cannot read its row.',
      handler: async (actor, sid) => {
        const { section, membership } = await readableSection(ctx, actor, sid);
        return serializeSection(section, 'detail', membership);
      },
    },
    patch: {
      summary: 'Change a section: name, description, order, data, is_archived (Project Admin, Edit; the row\'s rules)',
      description: 'Each change is one version of the row (whose data holds the row\'s sections); the same values again change nothing. '
        + 'A new `order` moves the section there (the sections in between shift by one). Send If-Match with the ETag of the GET to refuse a lost update.',
      body: SectionPatch,
      handler: async (actor, sid, body) => {
        const { section, membership } = await sectionWords(() => sectionUpdate(ctx, actor, sid, body));
        return serializeSection(section, 'detail', membership);
      },
    },
    delete: {
      summary: "Delete a section (the row's Project Admin; not of an archived row, nor a locked one)",
      description: 'The sections after it move up one. The deletion is a version of the row, whose data no longer holds the section '
        + '(the earlier versions keep it, and verify).',
      handler: (actor, sid) => sectionWords(() => sectionDelete(ctx, actor, sid)),
    },
  });
}
