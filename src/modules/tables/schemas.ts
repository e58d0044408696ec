import { Type } from '@sinclair/typebox';
import { Body, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';

const TableColumn = Type.Object({ sid: Sid, name: Type.String(), order: Type.Integer(), widget: Ref });

/** The table record in the `name`, `list` and `detail` shapes; detail lists its columns in order. */
export const TableShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({ sid: Sid, name: Type.String(), description: Type.String(), change_permission: Type.Boolean() }),
  detail: Type.Object({
    sid: Sid, name: Type.String(), description: Type.String(),
    columns: Type.Array(TableColumn, { description: 'the columns of the table, by order' }),
    date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
  }),
};

export const TableCreate = Body({ name: Text(255, { minLength: 1 }), description: Type.Optional(Text(10_000)) });
export const TablePatch = Body({ name: Type.Optional(Text(255, { minLength: 1 })), description: Type.Optional(Text(10_000)) });
