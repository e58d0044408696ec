// Sections (Labii's Section): a row's notebook pages, ordered rich text inside the record.
import { Type } from '@sinclair/typebox';
import { Body, JsonValue, Nullable, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';

const SectionData = JsonValue();

export const SectionShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({
    sid: Sid, name: Type.String(), description: Type.String(), widget: Nullable(Ref), row: Ref, table: Ref,
    order: Type.Integer({ description: 'its place among the row\'s sections, from 1' }), is_archived: Type.Boolean(), change_permission: Type.Boolean(),
  }, { title: 'SectionList' }),
  detail: Type.Object({
    sid: Sid, name: Type.String(), description: Type.String(), widget: Nullable(Ref), row: Ref, table: Ref,
    table__name_plural: Type.String(), row__sid: Sid,
    order: Type.Integer({ description: 'its place among the row\'s sections, from 1' }),
    data: Type.Unknown({ description: 'the content: a rich-text document (any JSON: e.g. TipTap\'s JSON) or a string; null when empty', 'x-document': 'JsonValue' }),
    is_archived: Type.Boolean(), version: Type.Integer({ description: "the row's version this section's latest change made" }),
    updated_by: Type.String(), date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
  }, { title: 'SectionDetail' }),
};

export const SectionListQuery = {
  row__sid: Type.Optional(Type.String({ maxLength: 64, description: "only this row's sections, in order" })),
  table__sid: Type.Optional(Type.String({ maxLength: 64, description: "only sections of this table's rows" })),
};
export const SectionCreateQuery = {
  row__sid: Type.Optional(Type.String({ maxLength: 64, description: 'the row of the new section (required; or `row` in the body)', 'x-required': true })),
};
const WidgetRef = Type.Object({ sid: Type.String({ maxLength: 64 }), name: Type.Optional(Type.String({ maxLength: 255, description: 'ignored' })) }, {
  additionalProperties: false, title: 'WidgetRef',
});
export const SectionCreate = Body({
  name: Text(255, { minLength: 1 }),
  description: Type.Optional(Text(10_000)),
  widget: Type.Optional(Nullable(WidgetRef)),
  widget__sid: Type.Optional(Type.String({ maxLength: 64, description: 'the widget (as Labii v3 sends it; or `widget: {sid}`)' })),
  row: Type.Optional(Type.String({ maxLength: 64, description: 'the row (or ?row__sid=)' })),
  order: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'its place (default: after the last)' })),
  data: Type.Optional(SectionData),
});
export const SectionPatch = Body({
  name: Type.Optional(Text(255, { minLength: 1 })),
  description: Type.Optional(Text(10_000)),
  order: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  data: Type.Optional(SectionData),
  is_archived: Type.Optional(Type.Boolean()),
}, { minProperties: 1 });
