import { Type } from '@sinclair/typebox';
import { Body, JsonObject, Nullable, QueryBool, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';
import { ExecutionShapes } from '../executions/schemas.js';

/** A step as its workflow lists it. */
const StepSummary = Type.Object({
  sid: Sid, name: Type.String(), order: Type.Integer(), widget: Ref,
  kind: Type.String({ description: "what the step does: its widget's kind (notify, set_cell, lock_row, wait_event; others do nothing)" }),
});

const Parent = Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647, description: 'the number of a parent workflow, as the client keeps it' });

const listFields = {
  sid: Sid,
  name: Type.String(),
  description: Type.String(),
  parent: Nullable(Parent),
  table: Nullable(Ref, 'the table the workflow is specific to; null: any table of the organization'),
  is_archived: Type.Boolean({ description: 'an archived workflow cannot be triggered' }),
  number_of_steps: Type.Integer({ description: 'the steps of the workflow' }),
  change_permission: Type.Boolean(),
};

const detailFields = {
  ...listFields,
  steps: Type.Array(StepSummary, { description: 'the steps, in the order they run' }),
  created_by: Type.String(),
  date_created: Timestamp,
  date_updated: Timestamp,
};

/** The workflow record in the `name`, `list` and `detail` shapes. */
export const WorkflowShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(listFields),
  detail: Type.Object(detailFields),
};

/** The answer to a PATCH: the workflow, and the execution when the PATCH triggered one. */
export const WorkflowPatched = Type.Object({
  ...detailFields,
  execution: Type.Optional(Type.Object(ExecutionShapes.detail.properties, {
    description: 'present when the PATCH triggered the workflow (trigger__sid): the execution after its steps ran',
  })),
}, { title: 'WorkflowAndExecution' });

const TableSid = (description: string) => Type.Optional(Type.String({ maxLength: 64, description }));
export const WorkflowListQuery = {
  table__sid: TableSid('only the workflows specific to this table of the organization'),
  is_archived: Type.Optional(QueryBool('only the archived (true) or only the other (false) workflows')),
};
export const WorkflowCreateQuery = { table__sid: TableSid('the table of the organization the workflow is specific to (none: any table)') };

export const WorkflowCreate = Body({
  parent: Type.Optional(Nullable(Parent)),
  name: Text(255, { minLength: 1 }),
  description: Type.Optional(Text(10_000)),
});

export const WorkflowPatch = Body({
  parent: Type.Optional(Nullable(Parent)),
  name: Type.Optional(Text(255, { minLength: 1 })),
  description: Type.Optional(Text(10_000)),
  is_archived: Type.Optional(Type.Boolean()),
  workflow_data: Type.Optional(JsonObject('merged into the execution\'s data (with trigger__sid)')),
  variables: Type.Optional(JsonObject('merged into the execution\'s variables, which step settings refer to as {{variables.x}} (with trigger__sid)')),
});

export const WorkflowPatchQuery = {
  trigger__sid: Type.Optional(Type.String({ maxLength: 64, description: 'a row: triggers the workflow for it (starts an execution or continues the one in progress)' })),
  event: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'an event for the execution log; resumes an execution waiting for it (with trigger__sid)' })),
};
