// Steps (spec: Step endpoints; the workflow issue): the ordered actions of a workflow, level=organization.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { StepCreate, StepCreateQuery, StepListQuery, StepPatch, StepShapes } from './schemas.js';
import { countSteps, pageSteps } from './repository.js';
import { withTotal, bodyRecordBytes } from '../../core/pagination.js';
import { changeStep, checkStepFilter, createStep, deleteStep, loadStep, serializeStep } from './service.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { steps } from '../../db/schema.js';

export function registerSteps(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/tables/step',
    tag: 'steps',
    levels: { organization: organizationLevel },
    shapes: StepShapes,
    get: {
      summary: 'List the steps of an organization\'s workflows (Admin, Member)',
      description: '`widget__sid` keeps the steps performed by that widget, `workflow__sid` those of that workflow (in order); '
        + 'a sid that is not a widget the organization uses or a workflow of the organization is a 400 on the filter. '
        + 'Without workflow__sid, oldest first.',
      query: StepListQuery,
      allowed: (scope) => permissions.step.read(scope.membership),
      addPermission: (scope) => permissions.step.change(scope.membership),
      // The detail shape carries a step's settings (free text, JSON): read and written by their
      // real sizes, a page in one read unless they are large (core/answer-stream.ts).
      recordBytes: (serializer) => (serializer === 'detail' ? bodyRecordBytes(ctx.config) : undefined),
      sized: true,
      count: async (scope, query) => {
        await checkStepFilter(ctx, scope.membership.organizationSid, query);
        return countSteps(ctx.db, scope.membership.organizationSid, query);
      },
      rows: async (scope, query, serializer, page) => {
        const found = await pageSteps(ctx.db, scope.membership.organizationSid, query, page.limit, page.offset, page.maxBytes);
        // A page with steps proves the filters the organization's; an empty one may be a filter's fault.
        if (found.total === undefined) await checkStepFilter(ctx, scope.membership.organizationSid, query);
        return withTotal(found.map((row) => serializeStep(row, serializer, scope.membership)), found);
      },
      counted: true,
    },
    post: {
      summary: 'Add a step to a workflow (Admin)',
      description: 'Body {name, description?, workflow: sid, widget?: sid (or the query\'s widget__sid), order? (from 1; default: last), '
        + 'data? (the settings of the widget\'s kind: notify {to, name, body?, should_email?}, set_cell {column, value}, lock_row {}, '
        + 'wait_event {event}; strings may hold {{references}})}. The steps from `order` on move down one. See docs/workflows.md.',
      query: StepCreateQuery,
      body: StepCreate,
      allowed: (scope) => permissions.step.change(scope.membership),
      create: async (scope, body, query, serializer) =>
        serializeStep(await createStep(ctx, scope.membership, query.widget__sid, body), serializer, scope.membership),
    },
  });

  defineDetail(app, ctx, {
    path: '/tables/step',
    lock: lockOwnRow(steps),
    tag: 'steps',
    shape: StepShapes.detail,
    get: {
      summary: 'One step (Admin, Member)',
      handler: async (actor, sid) => {
        const { row, membership } = await loadStep(ctx, actor, sid);
        return serializeStep(row, 'detail', membership);
      },
    },
    patch: {
      summary: 'Change a step: name, description, widget, settings or position (Admin)',
      description: 'A new `order` moves the step there (at most: last) and the steps in between by one. New settings, or a new '
        + "widget, are checked against the widget's kind (400 on `data.<setting>`). A step cannot move to another workflow.",
      body: StepPatch,
      handler: async (actor, sid, body) => {
        const { row, membership } = await changeStep(ctx, actor, sid, body);
        return serializeStep(row, 'detail', membership);
      },
    },
    delete: {
      summary: 'Delete a step (Admin)',
      description: 'The steps after it move up one. An execution in progress at this step goes on, when it next runs, with the step that followed it.',
      handler: (actor, sid) => deleteStep(ctx, actor, sid),
    },
  });
}
