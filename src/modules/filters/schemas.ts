// Saved filters (Labii's Filter, /tables/filter/): shapes and bodies.
import { Type } from '@sinclair/typebox';
import { Body, BoolLike, QueryBool, Sid, Text, Timestamp } from '../../core/schemas.js';

const Ref = Type.Object({ sid: Sid, name: Type.String() });
const Users = Type.Array(Sid, { description: 'the personnel sids the filter is shared with (they read it and apply it)' });
const listFields = {
  sid: Sid, name: Type.String(), description: Type.String(),
  query: Type.String({ description: 'the row list\'s query the filter stands for, as a query string (e.g. `is_archived=false&search=2`)' }),
  users: Users, is_archived: Type.Boolean(), table: Ref, change_permission: Type.Boolean(),
};

/** The saved filter in the `name`, `list` and `detail` shapes (Labii's, with `table` and `owner`). */
export const FilterShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(listFields),
  detail: Type.Object({ ...listFields, owner: Type.String({ description: 'the name of who saved it' }), date_created: Timestamp, date_updated: Timestamp }),
};

const QueryIn = Type.Union([
  Type.String({ maxLength: 10_000, description: 'a query string (`is_archived=false&search=2`; Labii\'s `…___[…]` form: the part before `___`)' }),
  Type.Record(Type.String({ maxLength: 64 }), Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]), {
    description: 'Labii\'s {field__expr: value}',
  }),
], { description: 'the row list\'s filters: project__sid, is_archived, uid, owner__sid, search (Labii\'s name__icontains), the date ranges' });
const UsersIn = Type.Array(Type.Union([Type.String({ maxLength: 64 }), Type.Object({ sid: Type.String({ maxLength: 64 }) })]), {
  maxItems: 1000, description: 'personnel sids (or {sid}) of the organization',
});

export const FilterCreate = Body({
  name: Text(255, { minLength: 1 }), description: Type.Optional(Type.Union([Text(10_000), Type.Null()])),
  query: QueryIn, users: Type.Optional(UsersIn), is_archived: Type.Optional(BoolLike),
  table: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Object({ sid: Type.String({ maxLength: 64 }) })], {
    description: 'the table whose rows it filters (or ?table__sid=)',
  })),
});
export const FilterPatch = Body({
  name: Type.Optional(Text(255, { minLength: 1 })), description: Type.Optional(Type.Union([Text(10_000), Type.Null()])),
  query: Type.Optional(QueryIn), users: Type.Optional(UsersIn), is_archived: Type.Optional(BoolLike),
}, { minProperties: 1 });
export const FilterCreateQuery = {
  table__sid: Type.Optional(Type.String({ maxLength: 64, description: 'the table whose rows it filters (or `table` in the body)' })),
};
export const FilterListQuery = {
  table__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only the filters of this table' })),
  is_archived: Type.Optional(QueryBool('only the archived (true) or only the other (false) filters')),
};
