import { Type } from '@sinclair/typebox';
import { JsonValue, QueryBool, Ref, Sid, StringEnum, Text, Timestamp } from '../../core/schemas.js';
import { CellShapes } from '../cells/schemas.js';
import { SectionShapes } from '../sections/schemas.js';
import { GRID_ORDERINGS } from './grid.js';
import { PresignedPostShape } from '../files/schemas.js';

const CellSummary = Type.Object({ sid: Sid, column: Ref, widget: Ref, data: Type.String() });
/** A cell as Labii's `column_set` lists it: the cell's sid, its column (with the column's widget) and its data. */
const ColumnSetItem = Type.Object({
  sid: Sid, column: Type.Object({ sid: Sid, name: Type.String(), widget: Ref }), data: Type.String(),
}, { title: 'ColumnSetItem' });
/** The fields Labii's row shapes carry (docs/labii-compatibility.md, "Rows, cells and sections"). */
const Labii = {
  uid: Type.String({ description: "the row's readable number in its table, e.g. SMP-000123 (the table's unique_code and a number); never changes" }),
  table__name_plural: Type.String({ description: "the table's name" }),
  projects: Type.Array(Ref, { description: "the row's projects, its first (`project`) first" }),
  owner: Type.String({ description: 'who created the row (as created_by)' }),
  is_template: Type.Boolean(),
  open_to_organization: Type.Boolean(),
  column_set: Type.Array(ColumnSetItem, { description: "the row's cells in column order, as Labii lists them" }),
};
export const RowShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({
    sid: Sid, uid: Labii.uid, name: Type.String(), table: Ref, table__name_plural: Labii.table__name_plural, project: Ref, projects: Labii.projects,
    owner: Labii.owner, is_template: Labii.is_template, open_to_organization: Labii.open_to_organization,
    is_locked: Type.Boolean(), is_archived: Type.Boolean(),
    version: Type.Integer({ description: 'the number of the latest version' }), column_set: Labii.column_set, change_permission: Type.Boolean(),
  }),
  detail: Type.Object({
    sid: Sid, uid: Labii.uid, name: Type.String(), description: Type.String(), table: Ref, table__name_plural: Labii.table__name_plural,
    project: Ref, projects: Labii.projects, owner: Labii.owner, is_template: Labii.is_template, open_to_organization: Labii.open_to_organization,
    is_locked: Type.Boolean(), is_archived: Type.Boolean(),
    metadata: JsonValue(),
    version: Type.Integer({ description: 'the number of the latest version' }),
    hash: Type.String({ description: 'the hash of the latest version' }),
    cells: Type.Array(CellSummary, { description: "the row's cells, in column order" }),
    column_set: Labii.column_set,
    section_set: Type.Array(SectionShapes.detail, { description: "the row's sections, in order" }),
    created_by: Type.String(), updated_by: Type.String({ description: "who made the row's latest version" }),
    date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
    presigned_post: Type.Optional(PresignedPostShape),
  }),
};

const DateBound = (field: string, bound: string) => Type.Optional(Type.String({
  maxLength: 40, description: `only rows whose ${field} is ${bound} this date (YYYY-MM-DD, UTC) or ISO 8601 timestamp`,
}));
/** Labii's row filters: one index each (schema.ts, record_rows). */
export const RowLabiiFilters = {
  is_archived: Type.Optional(QueryBool('only archived (true) or only unarchived (false) rows')),
  uid: Type.Optional(Type.String({ maxLength: 64, description: 'only the row with this uid (e.g. SMP-000123)' })),
  owner__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only rows created by this personnel' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'only rows whose name or uid contains this text (case-insensitive)' })),
  date_created__gte: DateBound('date_created', 'at or after'),
  date_created__gt: DateBound('date_created', 'after'),
  date_created__lte: DateBound('date_created', 'at or before (a date: that whole day)'),
  date_created__lt: DateBound('date_created', 'before'),
  date_updated__gte: DateBound('date_updated', 'at or after'),
  date_updated__gt: DateBound('date_updated', 'after'),
  date_updated__lte: DateBound('date_updated', 'at or before (a date: that whole day)'),
  date_updated__lt: DateBound('date_updated', 'before'),
};
export type RowLabiiFilter = {
  is_archived?: string; uid?: string; owner__sid?: string; search?: string;
  date_created__gte?: string; date_created__gt?: string; date_created__lte?: string; date_created__lt?: string;
  date_updated__gte?: string; date_updated__gt?: string; date_updated__lte?: string; date_updated__lt?: string;
};

export const RowListQuery = {
  table__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only rows of this table' })),
  project__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only rows of this project (any of its projects)' })),
  ...RowLabiiFilters,
  filter__sid: Type.Optional(Type.String({ maxLength: 64, description: 'a saved filter (/tables/filter/) applied: its table and filters; the other parameters given win' })),
};
export const RowCreateQuery = {
  table__sid: Type.String({ maxLength: 64, description: 'the table of the new row (required)' }),
  project__sid: Type.Optional(Type.String({ maxLength: 64, description: 'the project of the new row (or `projects` in the body)' })),
  presigned_post: Type.Optional(QueryBool('labii-sdk upload(): answer `presigned_post`, where to upload the row\'s file (serializer detail; a file column\'s value in the body is the name of the file to come, not a cell)')),
};
/** A cell's value in a row's body, keyed by its column's sid: a string, or a number or boolean (written as its text). */
const CellValue = Type.Union([Type.String({ maxLength: 100_000 }), Type.Number(), Type.Boolean(), Type.Null()], {
  description: 'the data of the cell in this column (a number or boolean is kept as its text; null: no cell)',
});
/** A column sid as a body key (Labii's rows take their cells' values keyed by column sid). */
export const COLUMN_KEY = '^[0-9A-Za-z]{16}$';
const ProjectList = Type.Array(Type.Object({ sid: Type.String({ maxLength: 64 }), name: Type.Optional(Type.String({ maxLength: 255, description: 'ignored' })) }, {
  additionalProperties: false, title: 'ProjectRef',
}), {
  minItems: 1, maxItems: 100, description: 'the projects of the row ([{"sid"}], as Labii sends them); the first is `project`',
});
const rowFields = {
  name: Text(255, { minLength: 1 }),
  description: Type.Optional(Text(10_000)),
  is_template: Type.Optional(Type.Boolean()),
  open_to_organization: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(JsonValue()),
};
export const RowCreate = Type.Object({
  ...rowFields,
  projects: Type.Optional(ProjectList),
  project__sid: Type.Optional(Type.String({ maxLength: 64, description: 'the project of the row (as Labii v3 sends it; or `projects`)' })),
  is_archived: Type.Optional(Type.Boolean()),
}, {
  additionalProperties: false, patternProperties: { [COLUMN_KEY]: CellValue },
  description: 'Also: the value of a cell keyed by its column\'s sid ({"<column sid>": "data"}): each becomes a cell of the row, in the same version.',
});
export const RowPatch = Type.Object({
  name: Type.Optional(rowFields.name),
  description: rowFields.description,
  is_template: rowFields.is_template,
  open_to_organization: rowFields.open_to_organization,
  metadata: rowFields.metadata,
  projects: Type.Optional(ProjectList),
  is_locked: Type.Optional(Type.Boolean()),
  is_archived: Type.Optional(Type.Boolean()),
}, {
  additionalProperties: false, patternProperties: { [COLUMN_KEY]: CellValue }, minProperties: 1,
  description: 'Also: the value of a cell keyed by its column\'s sid: the row\'s cell in that column is created or changed (as a cell write).',
});

export const ChainReport = Type.Object({
  row: Ref,
  versions: Type.Integer({ description: 'how many versions were checked' }),
  head_version: Type.Integer({ description: "the row's latest version number" }),
  is_valid: Type.Boolean({ description: 'true when every check passed' }),
  first_invalid_version: Type.Union([Type.Integer(), Type.Null()]),
  problems: Type.Array(Type.Object({
    version: Type.Integer(),
    problem: Type.String(),
    file: Type.Optional(Type.Object({ sid: Type.String(), name: Type.String(), sha256: Type.String() }, {
      description: "a file whose stored bytes no longer match the SHA-256 its version carries (or are missing): the first version that lists it",
    })),
  }), { description: 'at most 100' }),
  date_verified: Timestamp,
}, { title: 'ChainReport' });

/** The grid's query (GET /tables/row/list/table/{sid}/grid/). */
export const GridQuery = {
  project__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only rows of this project' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: "only rows whose name contains this text (case-insensitive)" })),
  is_archived: Type.Optional(Type.Boolean({ description: 'only archived (true) or only unarchived (false) rows' })),
  is_locked: Type.Optional(Type.Boolean({ description: 'only locked (true) or only unlocked (false) rows' })),
  ordering: Type.Optional(StringEnum(GRID_ORDERINGS, { description: 'the order of the rows (default date_created, oldest first); `-` for descending' })),
};

/** A row of the grid: the row's detail shape without column_set and section_set, its cells keyed by column sid (each the cell's detail shape). */
const { column_set: _columnSet, section_set: _sectionSet, presigned_post: _presigned, ...gridFields } = RowShapes.detail.properties;
export const GridRow = Type.Object({
  ...gridFields,
  cells: Type.Object({}, {
    additionalProperties: CellShapes.detail,
    description: "the row's cells by column sid, each in the cell detail shape (as the cell list's detail serializer gives it); a column without a cell in this row is absent",
  }),
}, { title: 'GridRow' });

/** GET /tables/row/stream/: which changes a stream carries. */
export const RowStreamQuery = Type.Object({
  table__sid: Type.String({ maxLength: 64, description: 'the table whose changes the stream carries' }),
  project__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only changes of rows of this project' })),
  row__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only changes of this row' })),
});
