import { Type } from '@sinclair/typebox';
import { Body, JsonObject, MetadataIn, MetadataOut, QueryBool, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';

const ColumnWidget = Type.Object({ sid: Sid, name: Type.String(), documentation_url: Type.String() });
const listFields = {
  sid: Sid, name: Type.String(), order: Type.Integer(), table: Ref, widget: ColumnWidget,
  description: Type.String(), default_value: Type.String(), is_required: Type.Boolean(), is_hidden: Type.Boolean(),
  is_archived: Type.Boolean(), name_system: Type.String(), change_permission: Type.Boolean(),
};
/** The column record in the `name`, `list` and `detail` shapes. */
export const ColumnShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(listFields),
  detail: Type.Object({
    ...listFields, metadata: MetadataOut,
    settings: JsonObject('the widget\'s settings for this column (docs/labii-compatibility.md, "Widget kinds"): a number\'s `unit`, '
      + 'a choice\'s `choices`, a foreign key\'s `table`'),
    date_created: Timestamp, date_updated: Timestamp,
  }),
};

const Order = Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'position among the table\'s columns (from 0)' });

export const ColumnSettings = Type.Object({
  unit: Type.Optional(Text(32, { description: 'a number\'s unit ("mg", "°C")' })),
  choices: Type.Optional(Type.Array(Text(255, { minLength: 1 }), { minItems: 1, maxItems: 500, description: 'a choice\'s options' })),
  table: Type.Optional(Type.String({ maxLength: 64, description: 'a foreign key\'s table (of the organization)' })),
}, { additionalProperties: false, description: 'the widget\'s settings for this column' });

const optional = {
  order: Type.Optional(Order),
  description: Type.Optional(Text(10_000)),
  default_value: Type.Optional(Text(10_000, { description: 'the value a new record\'s cell starts with ("" for none)' })),
  is_required: Type.Optional(Type.Boolean({ description: 'a new record must have a value here' })),
  is_hidden: Type.Optional(Type.Boolean()),
  is_archived: Type.Optional(Type.Boolean()),
  name_system: Type.Optional(Text(64)),
  metadata: Type.Optional(MetadataIn),
  settings: Type.Optional(ColumnSettings),
};
export const ColumnCreate = Body({
  name: Text(255, { minLength: 1 }),
  widget: Type.String({ maxLength: 64, description: "the sid of a built-in widget or one of the organization's" }),
  ...optional,
});
export const ColumnPatch = Body({ name: Type.Optional(Text(255, { minLength: 1 })), ...optional });

// Optional in the schema so that its absence on POST gets the field error of the design, not a generic one
// (`x-required`: the OpenAPI document says it is required all the same; core/openapi.ts).
const TableSid = (description: string, required = false) =>
  Type.Optional(Type.String({ maxLength: 64, description, ...(required ? { 'x-required': true } : {}) }));
export const ColumnListQuery = {
  table__sid: TableSid('only the columns of this table of the organization'),
  name_system: Type.Optional(Type.String({ maxLength: 64, description: 'only the columns with this system name' })),
  is_archived: Type.Optional(QueryBool('only the archived (true) or only the other (false) columns')),
};
export const ColumnCreateQuery = { table__sid: TableSid('the table of the organization the column is added to (required)', true) };
