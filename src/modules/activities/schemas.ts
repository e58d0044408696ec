// The activity log (Labii's Activity, /activities/activity/): its shape and filters.
import { Type } from '@sinclair/typebox';
import { Sid, StringEnum, Timestamp } from '../../core/schemas.js';

export const ACTIVITY_MODELS = ['row', 'project', 'table', 'column', 'member', 'personnel'] as const;

const User = Type.Union([Type.Object({ sid: Sid, first_name: Type.String(), last_name: Type.String(), email: Type.String() }), Type.Null()], {
  description: 'who did it (null: an account since deleted)',
});
const fields = {
  icon: Type.String({ description: '`add` for a creation, `edit` for a change, `delete` for a removal (Labii\'s)' }),
  user: User,
  action: StringEnum(['Created', 'Updated', 'Deleted'] as const, { description: 'Deleted: a project member removed' }),
  field: Type.String({ description: 'what changed: a row version\'s message ("Changed the cell Weight"); the fields that changed of a project, table, column, personnel or member' }),
  new_data: Type.String({ description: 'a project member\'s project role' }),
  target: Type.String({ description: 'the object\'s name when it was done' }),
  model: StringEnum(ACTIVITY_MODELS, { description: 'the kind of object (member: a project membership)' }),
  object_sid: Sid,
  version: Type.Union([Type.Integer(), Type.Null()], { description: 'the row\'s version the change made (rows)' }),
  date_created: Timestamp,
};

/** A line of the log: the same in every shape but `name` (Labii's list shape, with `version`). */
export const ActivityShapes = {
  name: Type.Object({ model: fields.model, object_sid: Sid, target: fields.target, action: fields.action, date_created: Timestamp }),
  list: Type.Object(fields),
  detail: Type.Object(fields),
};

const DateBound = (bound: string) => Type.Optional(Type.String({
  maxLength: 40, description: `only what was done ${bound} this date (YYYY-MM-DD, UTC) or ISO 8601 timestamp`,
}));
export const ActivityFilters = {
  user__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only what this user did (`user.sid`)' })),
  model: Type.Optional(StringEnum(ACTIVITY_MODELS, { description: 'only this kind of object' })),
  object_sid: Type.Optional(Type.String({ maxLength: 64, description: 'only what was done to this object' })),
  date_created__gte: DateBound('at or after'),
  date_created__gt: DateBound('after'),
  date_created__lte: DateBound('at or before (a date: that whole day)'),
  date_created__lt: DateBound('before'),
};
export interface ActivityFilter {
  user__sid?: string; model?: string; object_sid?: string;
  date_created__gte?: string; date_created__gt?: string; date_created__lte?: string; date_created__lt?: string;
}
