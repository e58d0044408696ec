import { Type } from '@sinclair/typebox';
import { JsonObject, Nullable, Ref, Sid, StringEnum, Timestamp } from '../../core/schemas.js';

export const EXECUTION_STATUSES = ['running', 'waiting', 'completed', 'failed'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** One entry of an execution's log. */
export const LogEntry = Type.Object({
  date_created: Timestamp,
  user: Nullable(Ref, 'who: the user whose request wrote the entry'),
  event: Type.String({ description: 'what happened: an engine event (started, step_completed …) or the name of a received event' }),
  status: Type.String({ description: 'info, ok, warning, error, or received (an event sent with the trigger)' }),
  message: Type.String(),
  step: Nullable(Ref, 'the step the entry is about, while it exists'),
});

const listFields = {
  sid: Sid,
  name: Type.String({ description: '"<workflow> on <row>"' }),
  workflow: Ref,
  row: Ref,
  status: StringEnum(EXECUTION_STATUSES, { description: 'running, waiting (for `waiting_for`), completed or failed (`error` says why)' }),
  current_step: Nullable(Ref, 'the step running, waited on or failed, or the last one completed; null before the first'),
  waiting_for: Nullable(Type.String(), 'the event a waiting execution waits for'),
  error: Nullable(Type.String(), 'why a failed execution failed'),
  started_by: Type.String({ description: 'who started it' }),
  date_created: Timestamp,
  date_updated: Timestamp,
  change_permission: Type.Boolean({ description: 'whether the caller may continue it (variables, events) through the workflow PATCH' }),
};

/** The execution record in the `name`, `list` and `detail` shapes. */
export const ExecutionShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(listFields),
  detail: Type.Object({
    ...listFields,
    variables: JsonObject('the execution\'s variables: merged from every trigger\'s `variables`'),
    data: JsonObject('the execution\'s data: merged from every trigger\'s `workflow_data`'),
    log: Type.Array(LogEntry, { description: 'the whole log, oldest first' }),
  }),
};

const Filter = (description: string) => Type.Optional(Type.String({ maxLength: 64, description }));
export const ExecutionListQuery = {
  workflow__sid: Filter('only the executions of this workflow of the organization'),
  row__sid: Filter('only the executions for this row'),
};
