import { Type } from '@sinclair/typebox';
import { Body, BoolLike, Ref, Sid, StringEnum, Timestamp } from '../../core/schemas.js';

export const ProjectPermission = StringEnum(['admin', 'edit', 'view'] as const, {
  description: 'the project role: admin (Project Admin), edit (Project Edit) or view (Project View)',
});
/** What a request may send: ours, or Labii's capitalisation. */
const PermissionIn = StringEnum(['admin', 'edit', 'view', 'Admin', 'Edit', 'View'] as const, {
  description: 'the project role: admin, edit or view (Labii\'s Admin, Edit, View too); answered in lower case',
});

const fields = {
  sid: Sid,
  name: Type.String({ description: 'the member\'s name' }),
  personnel: Ref,
  team: Type.Union([Ref, Type.Null()], { description: 'the team the member was added through (null: added alone)' }),
  project: Ref,
  permission: ProjectPermission,
  is_archived: Type.Boolean({ description: 'always false: a membership is removed (DELETE), not archived' }),
  change_permission: Type.Boolean(),
};
/** A project membership in the `name`, `list` and `detail` shapes; its name is the personnel's. */
export const ProjectMemberShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(fields),
  detail: Type.Object({ ...fields, date_created: Timestamp, date_updated: Timestamp }),
};

const SidOrRef = Type.Union([Type.String({ maxLength: 64 }), Type.Object({ sid: Type.String({ maxLength: 64 }) })]);
export const ProjectMemberCreate = Body({
  personnel: Type.Optional(Type.String({ maxLength: 64, description: 'the sid of a personnel record of the project\'s organization' })),
  member: Type.Optional(Type.Array(SidOrRef, { maxItems: 100, description: 'Labii\'s form: personnel sids (or {sid}), one membership each' })),
  team: Type.Optional(Type.Array(SidOrRef, { maxItems: 20, description: 'Labii\'s form: team sids (or {sid}): a membership for each of their personnel' })),
  permission: PermissionIn,
  is_archived: Type.Optional(BoolLike),
});
export const ProjectMemberPatch = Body({
  permission: Type.Optional(PermissionIn),
  is_archived: Type.Optional(Type.Boolean({ description: 'false only: remove a membership with DELETE' })),
});

export const ProjectMemberListQuery = {
  project__sid: Type.Optional(Type.String({ maxLength: 64, description: 'the project (required at level=organization, Labii\'s path; at level=project, the same project or nothing)' })),
};
