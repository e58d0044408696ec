import { Type } from '@sinclair/typebox';
import { Body, Sid, Text, Timestamp } from '../../core/schemas.js';

/** The project record in the `name`, `list` and `detail` shapes. */
export const ProjectShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({ sid: Sid, name: Type.String(), description: Type.String(), change_permission: Type.Boolean() }),
  detail: Type.Object({
    sid: Sid, name: Type.String(), description: Type.String(),
    created_by: Type.String({ description: "the creator's full name; empty when unknown" }),
    date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
  }),
};

export const ProjectCreate = Body({ name: Text(255, { minLength: 1 }), description: Type.Optional(Text(10_000)) });
export const ProjectPatch = Body({ name: Type.Optional(Text(255, { minLength: 1 })), description: Type.Optional(Text(10_000)) });
