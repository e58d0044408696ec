import { Type } from '@sinclair/typebox';
import { Body, Ref, Sid, StringEnum, Timestamp } from '../../core/schemas.js';

export const ProjectPermission = StringEnum(['admin', 'edit', 'view'] as const, {
  description: 'the project role: admin (Project Admin), edit (Project Edit) or view (Project View)',
});

/** A project membership in the `name`, `list` and `detail` shapes; its name is the personnel's. */
export const ProjectMemberShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({ sid: Sid, personnel: Ref, permission: ProjectPermission, change_permission: Type.Boolean() }),
  detail: Type.Object({
    sid: Sid, personnel: Ref, permission: ProjectPermission,
    date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
  }),
};

export const ProjectMemberCreate = Body({
  personnel: Type.String({ maxLength: 64, description: 'the sid of a personnel record of the project\'s organization' }),
  permission: ProjectPermission,
});
export const ProjectMemberPatch = Body({ permission: ProjectPermission });
