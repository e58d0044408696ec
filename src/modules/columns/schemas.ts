import { Type } from '@sinclair/typebox';
import { Body, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';

const listFields = {
  sid: Sid, name: Type.String(), order: Type.Integer(), table: Ref, widget: Ref, change_permission: Type.Boolean(),
};
/** The column record in the `name`, `list` and `detail` shapes. */
export const ColumnShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(listFields),
  detail: Type.Object({ ...listFields, date_created: Timestamp, date_updated: Timestamp }),
};

const Order = Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'position among the table\'s columns (from 0)' });

export const ColumnCreate = Body({
  name: Text(255, { minLength: 1 }),
  widget: Type.String({ maxLength: 64, description: "the sid of a built-in widget or one of the organization's" }),
  order: Type.Optional(Order),
});
export const ColumnPatch = Body({ name: Type.Optional(Text(255, { minLength: 1 })), order: Type.Optional(Order) });

// Optional in the schema so that its absence on POST gets the field error of the design, not a generic one
// (`x-required`: the OpenAPI document says it is required all the same; core/openapi.ts).
const TableSid = (description: string, required = false) =>
  Type.Optional(Type.String({ maxLength: 64, description, ...(required ? { 'x-required': true } : {}) }));
export const ColumnListQuery = { table__sid: TableSid('only the columns of this table of the organization') };
export const ColumnCreateQuery = { table__sid: TableSid('the table of the organization the column is added to (required)', true) };
