import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../core/auth.js';
import type { Db } from '../../db/client.js';
import type { Serializer } from '../../core/resource.js';
import { loadOrganizationRecord, type Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { errors } from '../../core/errors.js';
import { isSid, newSid } from '../../core/ids.js';
import { rows, workflows } from '../../db/schema.js';
import { checkTableFilter } from '../columns/service.js';
import { stepsOfWorkflows } from '../steps/repository.js';
import { ARCHIVED, triggerWorkflow } from '../executions/engine.js';
import { findWorkflow, type WorkflowRecord } from './repository.js';

/** Workflows in a shape for a caller; the detail shape's steps of the whole batch come from one query. */
export async function serializeWorkflows(db: Db, found: WorkflowRecord[], serializer: Serializer, membership: Membership) {
  if (serializer === 'name') return found.map((w) => ({ sid: w.sid, name: w.name }));
  const change_permission = permissions.workflow.change(membership);
  const records = found.map((w) => ({
    sid: w.sid, name: w.name, description: w.description, parent: w.parent, table: w.table, is_archived: w.is_archived,
    number_of_steps: w.number_of_steps, change_permission,
  }));
  if (serializer === 'list') return records;
  const steps = await stepsOfWorkflows(db, found.map((w) => w.sid));
  return records.map((record, i) => ({
    ...record, steps: steps.get(record.sid)!, created_by: found[i].created_by,
    date_created: found[i].date_created, date_updated: found[i].date_updated,
  }));
}

/** One workflow in a shape. */
export async function serializeWorkflow(db: Db, found: WorkflowRecord, serializer: Serializer, membership: Membership) {
  return (await serializeWorkflows(db, [found], serializer, membership))[0];
}

/** Creates a workflow of the caller's organization (Admin), specific to table `tableSid` when given. */
export async function createWorkflow(
  ctx: AppContext, membership: Membership, actor: Actor, tableSid: string | undefined,
  body: { parent?: number | null; name: string; description?: string },
): Promise<WorkflowRecord> {
  await checkTableFilter(ctx, membership.organizationSid, tableSid);
  return ctx.db.transaction(async (tx) => {
    const sid = newSid();
    await tx.insert(workflows).values({
      sid, organizationSid: membership.organizationSid, tableSid: tableSid ?? null, parent: body.parent ?? null,
      name: body.name, description: body.description ?? '', createdBy: actor.userSid,
    });
    return (await findWorkflow(tx, sid))!;
  });
}

/** The workflow `sid` for an active member of its organization (404 outside their organizations, 403 for Alumni). */
export async function loadWorkflow(ctx: AppContext, actor: Actor, sid: string) {
  return loadOrganizationRecord(ctx.db, actor, sid, (s) => findWorkflow(ctx.db, s));
}

export interface WorkflowChanges {
  parent?: number | null;
  name?: string;
  description?: string;
  is_archived?: boolean;
  workflow_data?: Record<string, unknown>;
  variables?: Record<string, unknown>;
}

const rowMessages = {
  required: 'Required with event, variables or workflow_data: the row whose execution they are for.',
  notInOrganization: (row: string, org: string) => `The row (${row}) does not belong to the organization (${org}).`,
  otherTable: (row: string, table: string) => `The row (${row}) is not a row of the table this workflow is specific to (${table}).`,
};

/** Refuses a row the workflow cannot be triggered for: one of another organization, or of another table. */
async function checkTriggerRow(ctx: AppContext, workflow: WorkflowRecord, rowSid: string): Promise<void> {
  const [row] = isSid(rowSid)
    ? await ctx.db.select({ organizationSid: rows.organizationSid, tableSid: rows.tableSid }).from(rows).where(eq(rows.sid, rowSid))
    : [];
  if (!row || row.organizationSid !== workflow.organization_sid) {
    throw errors.field('trigger__sid', rowMessages.notInOrganization(rowSid, workflow.organization_sid));
  }
  if (workflow.table && row.tableSid !== workflow.table.sid) {
    throw errors.field('trigger__sid', rowMessages.otherTable(rowSid, workflow.table.name));
  }
}

/**
 * Changes a workflow (Admin): its fields, then, with `trigger__sid`, triggers it for that
 * row (triggerWorkflow). Every check comes first, so a refused trigger changes nothing.
 * Returns the workflow and the sid of the execution when one was triggered.
 */
export async function changeWorkflow(
  ctx: AppContext, actor: Actor, sid: string, body: WorkflowChanges, query: { trigger__sid?: string; event?: string },
) {
  const { row: workflow, membership } = await loadWorkflow(ctx, actor, sid);
  if (!permissions.workflow.change(membership)) throw errors.forbidden();
  const { workflow_data: data, variables, ...fields } = body;
  const rowSid = query.trigger__sid;
  if (rowSid === undefined && (query.event !== undefined || data !== undefined || variables !== undefined)) {
    throw errors.field('trigger__sid', rowMessages.required);
  }
  if (rowSid !== undefined) {
    if (!permissions.workflow.trigger(membership)) throw errors.forbidden();
    if (fields.is_archived ?? workflow.is_archived) throw errors.badRequest(ARCHIVED);
    await checkTriggerRow(ctx, workflow, rowSid);
  }
  const applyFields = async (tx: Db) => {
    if (!Object.keys(fields).length) return;
    await tx.update(workflows).set({
      ...(fields.parent !== undefined ? { parent: fields.parent } : {}),
      ...(fields.name !== undefined ? { name: fields.name } : {}),
      ...(fields.description !== undefined ? { description: fields.description } : {}),
      ...(fields.is_archived !== undefined ? { isArchived: fields.is_archived } : {}),
      dateUpdated: sql`now()`,
    }).where(eq(workflows.sid, sid));
  };
  let executionSid: string | undefined;
  if (rowSid === undefined) {
    if (Object.keys(fields).length) await ctx.db.transaction(applyFields);
  } else {
    // The changes commit with the start of the execution, so a trigger refused under the
    // workflow's lock (archived meanwhile) changes nothing either.
    executionSid = await triggerWorkflow(ctx, {
      workflowSid: sid, rowSid, variables, data, event: query.event, before: applyFields,
      driver: { userSid: actor.userSid, personnelSid: membership.personnelSid },
    });
    ctx.mail.kick();
  }
  return { workflow: (await findWorkflow(ctx.db, sid))!, membership, executionSid };
}

/** Deletes a workflow (Admin) with its steps and executions. */
export async function deleteWorkflow(ctx: AppContext, actor: Actor, sid: string): Promise<void> {
  const { membership } = await loadWorkflow(ctx, actor, sid);
  if (!permissions.workflow.change(membership)) throw errors.forbidden();
  await ctx.db.transaction(async (tx) => {
    await tx.delete(workflows).where(eq(workflows.sid, sid));
  });
}
