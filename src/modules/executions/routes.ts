// Executions of workflows (the workflow issue): read-only, level=organization. They are
// started and continued by PATCHing the workflow with trigger__sid.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { loadOrganizationRecord } from '../../core/access.js';
import { readRow } from '../records/lock.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { ExecutionListQuery, ExecutionShapes } from './schemas.js';
import { countExecutions, findExecution, pageExecutions } from './repository.js';
import { serializeExecution, serializeExecutions } from './serializers.js';
import { findWorkflowInOrganization } from '../workflows/repository.js';
import { rowRecordBytes } from '../../core/pagination.js';

export function registerExecutions(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/tables/execution',
    tag: 'executions',
    levels: { organization: organizationLevel },
    shapes: ExecutionShapes,
    get: {
      summary: 'List the executions of workflows (Admin: all; others: those of rows of their projects)',
      description: 'Oldest first. Filters: `workflow__sid` (a workflow of the organization, else a 400 on it) and `row__sid`. '
        + 'The detail shape carries each execution\'s variables, data and whole log. Executions are started and continued '
        + 'by PATCHing the workflow with trigger__sid; add_permission is always false.',
      query: ExecutionListQuery,
      addPermission: () => false,
      // The detail shape carries variables and data (each up to ROW_MAX_BYTES): read and written a few records at a time (core/answer-stream.ts).
      recordBytes: (serializer) => (serializer === 'detail' ? 2 * rowRecordBytes(ctx.config) : undefined),
      count: async (scope, query) => {
        const orgSid = scope.membership.organizationSid;
        if (query.workflow__sid !== undefined && !(isSid(query.workflow__sid) && (await findWorkflowInOrganization(ctx.db, orgSid, query.workflow__sid)))) {
          throw errors.field('workflow__sid', 'Select a workflow of this organization.');
        }
        return countExecutions(ctx.db, orgSid, scope.membership, query);
      },
      rows: async (scope, query, serializer, page) =>
        serializeExecutions(ctx.db, await pageExecutions(ctx.db, scope.membership.organizationSid, scope.membership, query, page.limit, page.offset),
          serializer, scope.membership),
    },
  });

  defineDetail(app, ctx, {
    path: '/tables/execution',
    tag: 'executions',
    shape: ExecutionShapes.detail,
    get: {
      summary: 'One execution: status, current step, variables, data and the whole log',
      description: 'Readable like its row: an Admin reads every execution of the organization, others those of rows of their projects.',
      handler: async (actor, sid) => {
        // Found without a viewer (no personnel ''), then the caller's project role on its row decides.
        const { row, membership } = await loadOrganizationRecord(ctx.db, actor, sid, (s) => findExecution(ctx.db, s, ''));
        // The role on the row: the strongest in any of its projects (rules.ts, rowRole).
        if (!permissions.execution.read(membership, (await readRow(ctx.db, actor, { row: row.row.sid }))?.projectRole ?? null)) {
          throw errors.notFound();
        }
        return serializeExecution(ctx.db, row, 'detail', membership);
      },
    },
  });
}
