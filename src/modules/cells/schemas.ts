import { Type } from '@sinclair/typebox';
import { Body, Money, QueryBool, Ref, Sid, Timestamp } from '../../core/schemas.js';

/** The spec's Cell table, field for field. */
export const CellShapes = {
  name: Type.Object({ sid: Sid, name: Type.String({ description: "the column's name" }) }),
  list: Type.Object({ sid: Sid, row: Ref, widget: Ref, price: Money, change_permission: Type.Boolean() }),
  detail: Type.Object({
    sid: Sid, data: Type.String(), row: Ref, column: Ref, widget: Ref,
    date_updated: Timestamp, date_created: Timestamp, change_permission: Type.Boolean(),
  }),
};

export const CellListQuery = {
  row__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only the cells of this row, in column order' })),
  column__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only the cells of this column' })),
  column__sid__in: Type.Optional(Type.String({ maxLength: 2_000, description: 'only the cells of these columns (sids separated by commas)' })),
  data__isnull: Type.Optional(QueryBool('only empty cells (true: data is "", Labii\'s null) or only cells with data (false)')),
};
export const CellCreateQuery = {
  // Checked by the service (406 without it, as the spec says); required in the OpenAPI document.
  row__sid: Type.Optional(Type.String({ maxLength: 64, description: 'the row of the new cell (required: 406 without it)', 'x-required': true })),
};
const Data = Type.String({ maxLength: 100_000, description: 'the cell content' });
export const CellCreate = Body({ column: Type.String({ maxLength: 64, description: "a column of the row's table" }), data: Data });
export const CellPatch = Body({ data: Data });
