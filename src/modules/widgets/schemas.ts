import { Type } from '@sinclair/typebox';
import { Body, Money, Sid, StringEnum, Text, Timestamp } from '../../core/schemas.js';

/** What a widget does: the kinds of the built-in widgets (migration 0002). */
export const WIDGET_KINDS = [
  'text', 'steps', 'notify', 'set_cell', 'lock_row', 'wait_event', 'signature', 'file',
  // Value kinds (widgets/kinds.ts): what their cells may hold is checked on every write.
  'number', 'date', 'choice', 'multiple_choice', 'foreign_key', 'barcode', 'rich_text',
] as const;
export const WidgetKind = StringEnum(WIDGET_KINDS, {
  description: `what the widget does: ${WIDGET_KINDS.join(', ')}`,
});

const listFields = {
  sid: Sid, name: Type.String(), description: Type.String(),
  price: Money, addable_at_readonly: Type.Boolean(), kind: Type.String(),
  icon: Type.String(), notes: Type.String(), usecase: Type.String(), documentation_url: Type.String(),
  allow_multiple: Type.Boolean({ description: 'a cell may hold several values (a multiple choice)' }),
  is_readonly: Type.Boolean(), is_public: Type.Boolean(),
  is_builtin: Type.Boolean({ description: 'a built-in widget, shared by every organization and read-only' }),
  change_permission: Type.Boolean(),
};
/** The widget record in the `name`, `list` and `detail` shapes. */
export const WidgetShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object(listFields),
  detail: Type.Object({ ...listFields, date_created: Timestamp, date_updated: Timestamp }),
};

/** Checked exactly by the service (one message that says what is wrong), never through a float. */
const Price = Type.String({
  maxLength: 20,
  description: 'a decimal amount ≥ 0 with at most 2 decimals and 10 digits before the point, debited per cell write',
  example: '0.50',
});

const fields = {
  name: Text(255, { minLength: 1 }),
  description: Text(10_000),
  price: Price,
  addable_at_readonly: Type.Boolean({ description: 'whether cells of this widget may be added to a locked row' }),
  kind: WidgetKind,
  icon: Text(255),
  notes: Text(10_000),
  usecase: Text(10_000),
  documentation_url: Text(2000),
  allow_multiple: Type.Boolean(),
  is_readonly: Type.Boolean(),
  is_public: Type.Boolean(),
};
const catalogue = {
  icon: Type.Optional(fields.icon), notes: Type.Optional(fields.notes), usecase: Type.Optional(fields.usecase),
  documentation_url: Type.Optional(fields.documentation_url), allow_multiple: Type.Optional(fields.allow_multiple),
  is_readonly: Type.Optional(fields.is_readonly), is_public: Type.Optional(fields.is_public),
};

export const WidgetCreate = Body({
  name: fields.name,
  description: Type.Optional(fields.description),
  price: Type.Optional(fields.price),
  addable_at_readonly: Type.Optional(fields.addable_at_readonly),
  kind: Type.Optional(fields.kind),
  ...catalogue,
});
export const WidgetPatch = Body({
  name: Type.Optional(fields.name),
  description: Type.Optional(fields.description),
  price: Type.Optional(fields.price),
  addable_at_readonly: Type.Optional(fields.addable_at_readonly),
  kind: Type.Optional(fields.kind),
  ...catalogue,
});
