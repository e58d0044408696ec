import { Type } from '@sinclair/typebox';
import { Body, Ref, Sid, StringEnum, Text, Timestamp } from '../../core/schemas.js';
import { CellShapes } from '../cells/schemas.js';
import { GRID_ORDERINGS } from './repository.js';

const CellSummary = Type.Object({ sid: Sid, column: Ref, widget: Ref, data: Type.String() });

export const RowShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({
    sid: Sid, name: Type.String(), table: Ref, project: Ref, is_locked: Type.Boolean(), is_archived: Type.Boolean(),
    version: Type.Integer({ description: 'the number of the latest version' }), change_permission: Type.Boolean(),
  }),
  detail: Type.Object({
    sid: Sid, name: Type.String(), description: Type.String(), table: Ref, project: Ref,
    is_locked: Type.Boolean(), is_archived: Type.Boolean(),
    version: Type.Integer({ description: 'the number of the latest version' }),
    hash: Type.String({ description: 'the hash of the latest version' }),
    cells: Type.Array(CellSummary, { description: "the row's cells, in column order" }),
    created_by: Type.String(), date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
  }),
};

export const RowListQuery = {
  table__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only rows of this table' })),
  project__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only rows of this project' })),
};
export const RowCreateQuery = {
  table__sid: Type.String({ maxLength: 64, description: 'the table of the new row (required)' }),
  project__sid: Type.String({ maxLength: 64, description: 'the project of the new row (required)' }),
};
export const RowCreate = Body({ name: Text(255, { minLength: 1 }), description: Type.Optional(Text(10_000)) });
export const RowPatch = Body({
  name: Type.Optional(Text(255, { minLength: 1 })),
  description: Type.Optional(Text(10_000)),
  is_locked: Type.Optional(Type.Boolean()),
  is_archived: Type.Optional(Type.Boolean()),
}, { minProperties: 1 });

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

/** A row of the grid: the row's detail shape, its cells keyed by column sid (each the cell's detail shape). */
export const GridRow = Type.Object({
  ...RowShapes.detail.properties,
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
