import { Type } from '@sinclair/typebox';
import { Body, BoolLike, DateString, JsonValue, QueryBool, Sid, Text, Timestamp } from '../../core/schemas.js';
import { Email } from '../accounts/schemas.js';

const DashboardEntry = Type.Object({ link: Type.String(), note: Type.String() });

/** The three shapes of the spec's Personnel member table, field for field. */
export const PersonnelShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({
    sid: Sid, name: Type.String(), email: Type.String(), title: Type.String(),
    date_start: DateString, date_end: Type.Union([DateString, Type.Null()]),
    is_administrator: Type.Boolean(), is_archived: Type.Boolean(), change_permission: Type.Boolean(),
  }),
  detail: Type.Object({
    sid: Sid, name: Type.String(), email: Type.String(), first_name: Type.String(), last_name: Type.String(), title: Type.String(),
    date_start: DateString, date_end: Type.Union([DateString, Type.Null()]),
    is_administrator: Type.Boolean(), is_archived: Type.Boolean(),
    dashboard: Type.Array(DashboardEntry), is_use_single_sign_on: Type.Boolean(),
    should_receive_weekly_digest: Type.Boolean(), should_receive_statement_digest: Type.Boolean(),
    should_receive_mention_notification: Type.Boolean(), should_receive_record_change_notification: Type.Boolean(),
    should_receive_notification_email: Type.Boolean(),
    metadata: Type.Array(JsonValue()),
    change_permission: Type.Boolean(),
    updated_by: Type.String({ description: 'the full name of who last changed the record' }),
    date_updated: Timestamp,
  }),
};

/** The list's filter (beside page and page_size). */
export const PersonnelListQuery = {
  search: Type.Optional(Type.String({
    maxLength: 255, description: 'only members whose name ("First Last") or email contains this text (case-insensitive; empty: everyone)',
  })),
  user__sid: Type.Optional(Type.String({ maxLength: 64, description: "only the record of this account (the caller's own: their user sid)" })),
  is_administrator: Type.Optional(QueryBool('only the Admins (true) or only the others (false)')),
};

const DateEnd = Type.Union([DateString, Type.Literal(''), Type.Null()], { description: 'YYYY-MM-DD; "" or null for none' });

export const PersonnelCreateItem = Body({
  email: Email,
  first_name: Type.Optional(Text(150)),
  last_name: Type.Optional(Text(150)),
  title: Type.Optional(Text(255)),
  date_start: Type.Optional(DateString),
  date_end: Type.Optional(DateEnd),
  is_administrator: Type.Optional(BoolLike),
  is_archived: Type.Optional(BoolLike),
});

export const PersonnelCreate = Type.Union([PersonnelCreateItem, Type.Array(PersonnelCreateItem, { minItems: 1, maxItems: 100 })], {
  description: 'one member, or an array of up to 100',
});

export const PersonnelPatch = Body({
  title: Type.Optional(Text(255)),
  date_start: Type.Optional(DateString),
  date_end: Type.Optional(DateEnd),
  is_administrator: Type.Optional(BoolLike),
  is_archived: Type.Optional(BoolLike),
  first_name: Type.Optional(Text(150)),
  last_name: Type.Optional(Text(150)),
  email: Type.Optional(Email),
  metadata: Type.Optional(Type.Array(JsonValue(), { maxItems: 100 })),
  dashboard: Type.Optional(Type.Array(Type.Object({ link: Text(2000), note: Text(1000) }, { additionalProperties: false }), { maxItems: 100 })),
  should_receive_weekly_digest: Type.Optional(BoolLike),
  should_receive_statement_digest: Type.Optional(BoolLike),
  should_receive_mention_notification: Type.Optional(BoolLike),
  should_receive_record_change_notification: Type.Optional(BoolLike),
  should_receive_notification_email: Type.Optional(BoolLike),
});
