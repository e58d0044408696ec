import { Type } from '@sinclair/typebox';
import { Body, BoolLike, QueryBool, Sid, Text, Timestamp } from '../../core/schemas.js';

const Members = Type.Array(Sid, { description: 'the personnel sids of the team, in the order they joined' });
const listFields = { sid: Sid, name: Type.String(), description: Type.String(), is_archived: Type.Boolean(), change_permission: Type.Boolean() };

/** The team record in the `name`, `list` and `detail` shapes (Labii's: detail carries `members`). */
export const TeamShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(listFields),
  detail: Type.Object({ ...listFields, members: Members, date_created: Timestamp, date_updated: Timestamp }),
};

const MembersIn = Type.Array(Type.Union([Type.String({ maxLength: 64 }), Type.Object({ sid: Type.String({ maxLength: 64 }) })]), {
  maxItems: 1000, description: 'personnel sids (or {sid}) of the organization: the whole team (a PATCH replaces it)',
});
const Archived = BoolLike;

export const TeamCreate = Body({
  name: Text(255, { minLength: 1 }), description: Type.Optional(Text(10_000)), is_archived: Type.Optional(Archived), members: Type.Optional(MembersIn),
});
export const TeamPatch = Body({
  name: Type.Optional(Text(255, { minLength: 1 })), description: Type.Optional(Text(10_000)), is_archived: Type.Optional(Archived),
  members: Type.Optional(MembersIn),
});
export const TeamListQuery = {
  is_archived: Type.Optional(QueryBool('only the archived (true) or only the other (false) teams')),
};
