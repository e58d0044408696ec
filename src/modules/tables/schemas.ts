import { Type } from '@sinclair/typebox';
import { Body, MetadataIn, MetadataOut, QueryBool, Sid, Text, Timestamp } from '../../core/schemas.js';

const TableColumn = Type.Object({
  sid: Sid, name: Type.String(), order: Type.Integer(),
  widget: Type.Object({ sid: Sid, name: Type.String(), documentation_url: Type.String() }),
});

const labiiFields = {
  name_singular: Type.String({ description: 'what one record is called ("Sample")' }),
  name_plural: Type.String({ description: 'what the records are called ("Samples"); the same as `name`' }),
  unique_code: Type.String({ description: 'the prefix of the records\' readable ids (uid), unique in the organization' }),
  icon: Type.String(), table_type: Type.String(), order: Type.Integer(), is_archived: Type.Boolean(),
  name_system: Type.String({ description: 'a name for programs (Labii\'s, e.g. "file"); "" for none' }),
};
const counts = {
  number_of_records: Type.Integer({ description: 'the records of the table' }),
  number_of_columns: Type.Integer({ description: 'the columns of the table' }),
  number_of_workflows: Type.Integer({ description: 'the workflows specific to the table' }),
};

/** The table record in the `name`, `list` and `detail` shapes; detail lists its columns in order. */
export const TableShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({ sid: Sid, name: Type.String(), ...labiiFields, description: Type.String(), ...counts, change_permission: Type.Boolean() }),
  detail: Type.Object({
    sid: Sid, name: Type.String(), ...labiiFields, description: Type.String(), ...counts, metadata: MetadataOut,
    columns: Type.Array(TableColumn, { description: 'the columns of the table, by order' }),
    date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
  }),
};

const Code = Type.String({
  minLength: 1, maxLength: 10, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$', example: 'SMP',
  description: 'letters, digits, "_" and "-" (default: the first three letters or digits of the name, upper-case, made unique)',
});
const Name = Text(255, { minLength: 1 });
const optional = {
  name_singular: Type.Optional(Name),
  unique_code: Type.Optional(Code),
  description: Type.Optional(Text(10_000)),
  icon: Type.Optional(Text(255)),
  table_type: Type.Optional(Text(64)),
  order: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  is_archived: Type.Optional(Type.Boolean()),
  name_system: Type.Optional(Text(64)),
  metadata: Type.Optional(MetadataIn),
};

export const TableCreate = Body({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'the (plural) name; or send name_plural (one of the two is required)' })),
  name_plural: Type.Optional(Name), ...optional,
});
export const TablePatch = Body({ name: Type.Optional(Name), name_plural: Type.Optional(Name), ...optional });

export const TableListQuery = {
  name_system: Type.Optional(Type.String({ maxLength: 64, description: 'only the table(s) with this system name (Labii\'s SDK asks for "file")' })),
  is_archived: Type.Optional(QueryBool('only the archived (true) or only the other (false) tables')),
};
