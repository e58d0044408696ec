import { Type } from '@sinclair/typebox';
import { Body, JsonObject, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';

const listFields = {
  sid: Sid,
  name: Type.String(),
  workflow: Ref,
  widget: Ref,
  kind: Type.String({ description: "what the step does: its widget's kind (notify, set_cell, lock_row, wait_event; others do nothing)" }),
  order: Type.Integer({ description: 'its position in the workflow, from 1; unique within the workflow' }),
  parent: Type.Union([Sid, Type.Null()], { description: 'Labii\'s: the step of the workflow this one branches from (null: none)' }),
  redirect_to: Type.Union([Type.String(), Type.Null()], { description: 'Labii\'s: where the app goes after the step (kept as sent)' }),
  color: Type.String({ description: 'Labii\'s: the step\'s colour in the app' }),
  change_permission: Type.Boolean(),
};

/** The step record in the `name`, `list` and `detail` shapes. */
export const StepShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(listFields),
  detail: Type.Object({
    ...listFields,
    description: Type.String(),
    data: JsonObject('the step\'s settings, by widget kind (docs/workflows.md); strings may hold {{references}}'),
    date_created: Timestamp,
    date_updated: Timestamp,
  }),
};

const SidFilter = (description: string) => Type.Optional(Type.String({ maxLength: 64, description }));
export const StepListQuery = {
  widget__sid: SidFilter('only the steps performed by this widget (built-in or of the organization)'),
  workflow__sid: SidFilter('only the steps of this workflow of the organization, in order'),
};
export const StepCreateQuery = {
  widget__sid: SidFilter('the widget of the new step, when the body does not name it'),
};

const Order = Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'position in the workflow, from 1 (default: after the last step); the steps from there on move down one' });
const Settings = JsonObject('the step\'s settings (docs/workflows.md): notify {to, name, body?, should_email?}, set_cell {column, value}, lock_row {}, wait_event {event}');
const WidgetSid = Type.String({ maxLength: 64, description: "the sid of a built-in widget or one of the organization's" });

export const StepCreate = Body({
  name: Text(255, { minLength: 1 }),
  description: Type.Optional(Text(10_000)),
  workflow: Type.String({ maxLength: 64, description: 'the sid of a workflow of the organization' }),
  widget: Type.Optional(WidgetSid),
  order: Type.Optional(Order),
  data: Type.Optional(Settings),
  parent: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'a step of the same workflow, or null' })),
  redirect_to: Type.Optional(Type.Union([Text(2000), Type.Null()])),
  color: Type.Optional(Text(32)),
});

export const StepPatch = Body({
  name: Type.Optional(Text(255, { minLength: 1 })),
  description: Type.Optional(Text(10_000)),
  widget: Type.Optional(WidgetSid),
  order: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'the new position, from 1 (past the last: last); the steps in between move by one' })),
  data: Type.Optional(Settings),
  parent: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'a step of the same workflow, or null' })),
  redirect_to: Type.Optional(Type.Union([Text(2000), Type.Null()])),
  color: Type.Optional(Text(32)),
});
