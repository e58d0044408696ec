// Steps: the ordered actions of a workflow. Orders are the positions 1, 2, 3 … of the
// workflow's steps, kept unique and without gaps: inserting, moving and deleting a step
// move the steps after it, under the workflow's lock.
import { and, eq, inArray, lt, desc, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Actor } from '../../core/auth.js';
import type { Serializer } from '../../core/resource.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { executions, steps } from '../../db/schema.js';
import { findUsable } from '../widgets/repository.js';
import { findWorkflowInOrganization } from '../workflows/repository.js';
import { findStep, lockWorkflowSteps, shiftSteps, type StepFilter, type StepRecord } from './repository.js';
import { MAX_STEPS, settingsProblems } from './settings.js';

const messages = {
  notAWorkflow: 'Select a workflow of this organization.',
  notAWidget: "Select a built-in widget or one of this organization's widgets.",
  widgetRequired: 'This field is required (or give the query parameter widget__sid).',
  widgetsDiffer: 'The body and the query parameter widget__sid name different widgets.',
  tooMany: `This workflow has ${MAX_STEPS} steps, the most a workflow may have.`,
};

/** A step in a shape, for a caller. */
export function serializeStep(row: StepRecord, serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return { sid: row.sid, name: row.name };
  const record = {
    sid: row.sid, name: row.name, workflow: row.workflow, widget: row.widget, kind: row.kind, order: row.order,
    parent: row.parent, redirect_to: row.redirect_to, color: row.color,
    change_permission: permissions.step.change(membership),
  };
  if (serializer === 'list') return record;
  return { ...record, description: row.description, data: row.data, date_created: row.date_created, date_updated: row.date_updated };
}

/** Checks a step list's filters: a widget the organization uses and a workflow of the organization, or a 400 on the filter. */
export async function checkStepFilter(ctx: AppContext, orgSid: string, filter: StepFilter): Promise<void> {
  const problems: Record<string, string> = {};
  if (filter.widget__sid !== undefined && !(isSid(filter.widget__sid) && (await findUsable(ctx.db, orgSid, filter.widget__sid)))) {
    problems.widget__sid = messages.notAWidget;
  }
  if (filter.workflow__sid !== undefined
    && !(isSid(filter.workflow__sid) && (await findWorkflowInOrganization(ctx.db, orgSid, filter.workflow__sid)))) {
    problems.workflow__sid = messages.notAWorkflow;
  }
  if (Object.keys(problems).length) throw errors.fields(problems);
}

/** The widget `sid` if the organization may use it, else a 400 on `widget`. */
async function usableWidget(ctx: AppContext, orgSid: string, sid: string) {
  const widget = isSid(sid) ? await findUsable(ctx.db, orgSid, sid) : undefined;
  if (!widget) throw errors.field('widget', messages.notAWidget);
  return widget;
}

/** Refuses settings that do not fit the widget's kind: 400 on `data.<setting>`. */
function checkSettings(kind: string, data: Record<string, unknown>): void {
  const problems = settingsProblems(kind, data);
  if (Object.keys(problems).length) {
    throw errors.fields(Object.fromEntries(Object.entries(problems).map(([name, problem]) => [`data.${name}`, problem])));
  }
}

export interface StepInput {
  name: string;
  description?: string;
  workflow: string;
  widget?: string;
  order?: number;
  data?: Record<string, unknown>;
  parent?: string | null;
  redirect_to?: string | null;
  color?: string;
}

/** Labii's step fields, checked: the parent is another step of the same workflow. */
async function labiiValues(db: Db, workflowSid: string, body: { parent?: string | null; redirect_to?: string | null; color?: string }, sid: string) {
  if (body.parent) {
    if (body.parent === sid) throw errors.field('parent', 'A step cannot branch from itself.');
    const [found] = isSid(body.parent)
      ? await db.select({ sid: steps.sid }).from(steps).where(and(eq(steps.sid, body.parent), eq(steps.workflowSid, workflowSid)))
      : [];
    if (!found) throw errors.field('parent', 'Select a step of the same workflow.');
  }
  return {
    ...(body.parent !== undefined ? { parentSid: body.parent || null } : {}),
    ...(body.redirect_to !== undefined ? { redirectTo: body.redirect_to } : {}),
    ...(body.color !== undefined ? { color: body.color } : {}),
  };
}

/**
 * Adds a step to a workflow of the caller's organization (Admin), performed by a widget
 * the organization uses (the body's `widget`, or else the query's widget__sid). At
 * `order` (from 1; default and at most: after the last step) the steps from there on move down one.
 */
export async function createStep(ctx: AppContext, membership: Membership, widgetQuery: string | undefined, body: StepInput): Promise<StepRecord> {
  const orgSid = membership.organizationSid;
  if (body.widget !== undefined && widgetQuery !== undefined && body.widget !== widgetQuery) throw errors.field('widget', messages.widgetsDiffer);
  const widgetSid = body.widget ?? widgetQuery;
  if (widgetSid === undefined) throw errors.field('widget', messages.widgetRequired);
  const widget = await usableWidget(ctx, orgSid, widgetSid);
  if (!isSid(body.workflow)) throw errors.field('workflow', messages.notAWorkflow);
  const data = body.data ?? {};
  checkSettings(widget.kind, data);
  return ctx.db.transaction(async (tx) => {
    const last = await lockWorkflowSteps(tx, orgSid, body.workflow);
    if (last === undefined) throw errors.field('workflow', messages.notAWorkflow);
    if (last >= MAX_STEPS) throw errors.field('workflow', messages.tooMany);
    const order = Math.min(body.order ?? last + 1, last + 1);
    await shiftSteps(tx, body.workflow, order, last, 1);
    const sid = newSid();
    await tx.insert(steps).values({
      sid, organizationSid: orgSid, workflowSid: body.workflow, widgetSid: widget.sid, name: body.name,
      description: body.description ?? '', order, data, ...await labiiValues(tx, body.workflow, body, sid),
    });
    return (await findStep(tx, sid))!;
  });
}

/** The step `sid` for an active member of its organization (404 outside their organizations, 403 for Alumni). */
export async function loadStep(ctx: AppContext, actor: Actor, sid: string) {
  return loadOrganizationRecord(ctx.db, actor, sid, (s) => findStep(ctx.db, s));
}

/** The step's order, read under its workflow's lock; 404 when it was deleted meanwhile. */
async function lockedOrder(tx: Db, sid: string): Promise<number> {
  const [current] = await tx.select({ order: steps.order }).from(steps).where(eq(steps.sid, sid));
  if (!current) throw errors.notFound();
  return current.order;
}

/**
 * Changes a step (Admin): name, description, widget, settings, and its position (`order`,
 * at most the last; the steps in between move by one). New settings or a new widget are
 * checked against the widget's kind.
 */
export async function changeStep(
  ctx: AppContext, actor: Actor, sid: string,
  body: { name?: string; description?: string; widget?: string; order?: number; data?: Record<string, unknown>; parent?: string | null;
    redirect_to?: string | null; color?: string },
) {
  const { row, membership } = await loadStep(ctx, actor, sid);
  if (!permissions.step.change(membership)) throw errors.forbidden();
  const orgSid = membership.organizationSid;
  const widget = body.widget !== undefined ? await usableWidget(ctx, orgSid, body.widget) : undefined;
  if (widget || body.data !== undefined) checkSettings(widget?.kind ?? row.kind, body.data ?? row.data);
  if (!Object.keys(body).length) return { row, membership };
  const updated = await ctx.db.transaction(async (tx) => {
    const last = (await lockWorkflowSteps(tx, orgSid, row.workflow_sid))!;
    const from = await lockedOrder(tx, sid);
    if (body.order !== undefined) {
      const to = Math.min(body.order, last);
      if (to !== from) {
        // Out of the way (0 is no position), move the steps in between, then into place.
        await tx.update(steps).set({ order: 0 }).where(eq(steps.sid, sid));
        if (to < from) await shiftSteps(tx, row.workflow_sid, to, from - 1, 1);
        else await shiftSteps(tx, row.workflow_sid, from + 1, to, -1);
        await tx.update(steps).set({ order: to }).where(eq(steps.sid, sid));
      }
    }
    await tx.update(steps).set({
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(widget ? { widgetSid: widget.sid } : {}),
      ...(body.data !== undefined ? { data: body.data } : {}),
      ...await labiiValues(tx, row.workflow_sid, body, sid),
      dateUpdated: sql`now()`,
    }).where(eq(steps.sid, sid));
    return (await findStep(tx, sid))!;
  });
  return { row: updated, membership };
}

/**
 * Deletes a step (Admin); the steps after it move up one. An execution in progress at
 * this step goes back to the step before it, so it resumes with the step that followed.
 */
export async function deleteStep(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  const { row, membership } = await loadStep(ctx, actor, sid);
  if (!permissions.step.change(membership)) throw errors.forbidden();
  await ctx.db.transaction(async (tx) => {
    const last = (await lockWorkflowSteps(tx, membership.organizationSid, row.workflow_sid))!;
    const order = await lockedOrder(tx, sid);
    const [previous] = await tx.select({ sid: steps.sid }).from(steps)
      .where(and(eq(steps.workflowSid, row.workflow_sid), lt(steps.order, order))).orderBy(desc(steps.order)).limit(1);
    await tx.update(executions).set({ currentStepSid: previous?.sid ?? null, dateUpdated: sql`now()` })
      .where(and(eq(executions.workflowSid, row.workflow_sid), eq(executions.currentStepSid, sid), inArray(executions.status, ['running', 'waiting'])));
    await tx.delete(steps).where(eq(steps.sid, sid));
    await shiftSteps(tx, row.workflow_sid, order + 1, last, -1);
  });
}
