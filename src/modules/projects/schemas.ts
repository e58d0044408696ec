import { Type } from '@sinclair/typebox';
import { Body, DateString, MetadataIn, MetadataOut, QueryBool, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';

const labiiFields = {
  parent: Type.Union([Ref, Type.Null()], { description: 'the project this one is inside (null: none)' }),
  date_start: Type.Union([DateString, Type.Null()]), date_end: Type.Union([DateString, Type.Null()]),
  is_archived: Type.Boolean(),
  open_to_organization: Type.Boolean({ description: 'every active member of the organization reads the project and its records (as Project View; docs/labii-compatibility.md)' }),
};

/** The project record in the `name`, `list` and `detail` shapes. */
export const ProjectShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({ sid: Sid, name: Type.String(), description: Type.String(), ...labiiFields, change_permission: Type.Boolean() }),
  detail: Type.Object({
    sid: Sid, name: Type.String(), description: Type.String(), ...labiiFields, metadata: MetadataOut,
    created_by: Type.String({ description: "the creator's full name; empty when unknown" }),
    updated_by: Type.String({ description: "the full name of who changed it last; empty when unknown" }),
    date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
  }),
};

const NullableDate = Type.Union([DateString, Type.Literal(''), Type.Null()], { description: 'YYYY-MM-DD; "" or null for none' });
const optional = {
  description: Type.Optional(Text(10_000)),
  parent: Type.Optional(Type.Union([
    Type.String({ maxLength: 64 }), Type.Object({ sid: Type.String({ maxLength: 64 }) }), Type.Null(),
  ], { description: 'the sid of a project of the organization (or {sid}); null for none' })),
  date_start: Type.Optional(NullableDate),
  date_end: Type.Optional(NullableDate),
  is_archived: Type.Optional(Type.Boolean()),
  open_to_organization: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(MetadataIn),
};
export const ProjectCreate = Body({ name: Text(255, { minLength: 1 }), ...optional });
export const ProjectPatch = Body({ name: Type.Optional(Text(255, { minLength: 1 })), ...optional });

export const ProjectListQuery = {
  is_archived: Type.Optional(QueryBool('only the archived (true) or only the other (false) projects')),
  parent__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only the projects inside this project' })),
};
