import { Type } from '@sinclair/typebox';
import { Body, QueryBool, Sid, Timestamp } from '../../core/schemas.js';
import { User } from '../accounts/schemas.js';

/**
 * A version's row data (records_row_data: exactly these fields), alone in the list's
 * `dataonly=true` and as `data` in the shapes that carry it.
 */
export const VersionData = Type.Object({
  name: Type.String(), description: Type.String(), is_locked: Type.Boolean(), is_archived: Type.Boolean(),
  cells: Type.Record(Type.String(), Type.String(), { description: 'the cells by column sid' }),
  sections: Type.Optional(Type.Array(Type.Object({
    sid: Sid, name: Type.String(), description: Type.String(), order: Type.Integer(), is_archived: Type.Boolean(),
    data: Type.String({ description: "the section's content as the JSON text written" }),
  }, { title: 'SectionData' }), { description: "the row's sections in order; only once it has any (docs/versions.md)" })),
}, { title: 'RowData', description: "the row's data as this version recorded it" });

const Hash = Type.String({ description: 'SHA-256 (hex)' });
const common = {
  sid: Sid,
  name: Type.String({ description: 'the row name followed by the version number in parentheses' }),
  hash: Hash,
  previousHash: Type.String({ description: 'the hash of the preceding version; "" for version 1' }),
  version: Type.Integer(),
};
const listFields = {
  ...common,
  activity_message: Type.String(),
  commit: Type.Union([Type.String(), Type.Null()]),
  is_valid: Type.Boolean({ description: 'recomputed from the stored data: the hash matches and the chain link holds' }),
  updated_by: Type.String({ description: 'the full name of who made the change' }),
  date_created: Timestamp,
  change_permission: Type.Boolean(),
};

/** Spec: name, list, and the fuller list shape with `data` (serializer `detail` on the list). */
export const VersionShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(listFields),
  detail: Type.Object({ ...listFields, data: VersionData }),
};

/** The version detail (spec: with data, updated_by as an object). */
export const VersionDetail = Type.Object({
  ...common,
  data: VersionData,
  activity_message: Type.String(),
  updated_by: User,
  date_created: Timestamp,
  date_updated: Timestamp,
  change_permission: Type.Boolean(),
}, { title: 'Version' });

/** The version PATCH answer: the detail shape and the commit it set. */
export const VersionPatched = Type.Object({
  ...VersionDetail.properties,
  commit: Type.Union([Type.String(), Type.Null()]),
}, { title: 'VersionWithCommit' });

export const VersionListQuery = {
  row__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only the versions of this row, in version order' })),
  dataonly: Type.Optional(QueryBool("true: each result is only the version's row data object")),
};

export const VersionPatch = Body({ commit: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]) });
