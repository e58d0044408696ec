// Workflows (spec: Workflow, Workflow endpoints; the workflow issue): level=organization.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { WorkflowCreate, WorkflowCreateQuery, WorkflowListQuery, WorkflowPatch, WorkflowPatchQuery, WorkflowPatched, WorkflowShapes } from './schemas.js';
import { countWorkflows, pageWorkflows } from './repository.js';
import { withTotal } from '../../core/pagination.js';
import { changeWorkflow, createWorkflow, deleteWorkflow, loadWorkflow, serializeWorkflow, serializeWorkflows } from './service.js';
import { checkTableFilter } from '../columns/service.js';
import { findExecution } from '../executions/repository.js';
import { serializeExecution } from '../executions/serializers.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { workflows } from '../../db/schema.js';
import { queryBool } from '../../core/schemas.js';

export function registerWorkflows(app: FastifyInstance, ctx: AppContext): void {
  // A trigger needs no body: `PATCH …?trigger__sid=<row>` sent with none (with or without
  // a JSON Content-Type, as SDKs send it) changes no field, as `{}` would.
  app.addHook('preValidation', async (request) => {
    if (request.method === 'PATCH' && request.body === undefined && PATHS.some((p) => request.routeOptions.url === `${p}/detail/:sid/`)
      && (request.query as { trigger__sid?: unknown }).trigger__sid !== undefined) request.body = {};
  });
  // The spec's path, and labii-sdk 1.13.14's (its Workflow is APIResource("workflows", "workflow")): the same resource.
  for (const path of PATHS) registerAt(app, ctx, path);
}

const PATHS = ['/tables/workflow', '/workflows/workflow'];

function registerAt(app: FastifyInstance, ctx: AppContext, path: string): void {
  const archived = (q: { is_archived?: string }) => (q.is_archived === undefined ? undefined : queryBool(q.is_archived));
  defineList(app, ctx, {
    path,
    tag: 'workflows',
    levels: { organization: organizationLevel },
    shapes: WorkflowShapes,
    get: {
      summary: 'List the workflows of an organization (Admin, Member)',
      description: 'Oldest first. `is_archived` filters. `table__sid` restricts the list to the workflows specific to that table of the organization '
        + '(any other sid is a 400 on `table__sid`). The detail shape carries each workflow\'s steps in order.',
      query: WorkflowListQuery,
      allowed: (scope) => permissions.workflow.read(scope.membership),
      addPermission: (scope) => permissions.workflow.change(scope.membership),
      count: async (scope, query) => {
        await checkTableFilter(ctx, scope.membership.organizationSid, query.table__sid);
        return countWorkflows(ctx.db, scope.membership.organizationSid, query.table__sid, archived(query));
      },
      rows: async (scope, query, serializer, page) => {
        const found = await pageWorkflows(ctx.db, scope.membership.organizationSid, query.table__sid, page.limit, page.offset, archived(query));
        // A page with workflows proves the table filter one of the organization's; an empty one may be the filter's fault.
        if (found.total === undefined) await checkTableFilter(ctx, scope.membership.organizationSid, query.table__sid);
        return withTotal(await serializeWorkflows(ctx.db, found, serializer, scope.membership), found);
      },
      counted: true,
    },
    post: {
      summary: 'Create a workflow (Admin)',
      description: 'Query `table__sid` (optional): a table of the organization the workflow is specific to; it can then be triggered '
        + 'only for rows of that table. Body {name, description?, parent? (integer or null)}. Steps are added through /tables/step/.',
      query: WorkflowCreateQuery,
      body: WorkflowCreate,
      allowed: (scope) => permissions.workflow.change(scope.membership),
      create: async (scope, body, query, serializer) =>
        serializeWorkflow(ctx.db, await createWorkflow(ctx, scope.membership, scope.actor, query.table__sid, body), serializer, scope.membership),
    },
  });

  defineDetail(app, ctx, {
    path,
    lock: lockOwnRow(workflows),
    tag: 'workflows',
    shape: WorkflowShapes.detail,
    get: {
      summary: 'One workflow, with its steps in order (Admin, Member)',
      handler: async (actor, sid) => {
        const { row, membership } = await loadWorkflow(ctx, actor, sid);
        return serializeWorkflow(ctx.db, row, 'detail', membership);
      },
    },
    patch: {
      summary: 'Change a workflow, or trigger it for a row (Admin)',
      description: 'Body {name?, description?, parent?, is_archived?} changes the workflow. With `?trigger__sid=<row>` the workflow is '
        + 'triggered for that row: it starts an execution (or continues the one running or waiting), merges `variables` and '
        + '`workflow_data` into it, logs `?event=` (resuming an execution that waits for that event) and runs the steps in order '
        + 'until one waits, they are all done, or one fails; the answer then carries the `execution`. A failing step does not '
        + 'fail the request: the execution says `failed` and why. Refused (400, nothing changed): an archived workflow, a row of '
        + 'another organization or (for a table-specific workflow) of another table, and event, variables or workflow_data '
        + 'without trigger__sid. See docs/workflows.md.',
      query: WorkflowPatchQuery,
      body: WorkflowPatch,
      response: WorkflowPatched,
      handler: async (actor, sid, body, query) => {
        const { workflow, membership, executionSid } = await changeWorkflow(ctx, actor, sid, body, query);
        const record = await serializeWorkflow(ctx.db, workflow, 'detail', membership);
        if (executionSid === undefined) return record;
        const execution = (await findExecution(ctx.db, executionSid, membership.personnelSid))!;
        return { ...record, execution: await serializeExecution(ctx.db, execution, 'detail', membership) };
      },
    },
    delete: {
      summary: 'Delete a workflow with its steps and executions (Admin)',
      handler: (actor, sid) => deleteWorkflow(ctx, actor, sid),
    },
  });
}
