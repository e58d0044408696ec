import { Type } from '@sinclair/typebox';
import { Body, JsonValue, MetadataIn, MetadataOut, Money, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';

const Username = Type.String({
  minLength: 2, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', example: 'acme-labs',
  description: 'the organization\'s unique handle (letters, digits, "_", "." and "-"; compared ignoring case)',
});
const DashboardEntry = Type.Object({ link: Text(2000), note: Text(1000) }, { additionalProperties: false });

export const OrganizationShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({
    sid: Sid, name: Type.String(), username: Type.String(), description: Type.String(),
    logo_icon: Type.String(), logo_wordmark: Type.String(), credits: Money, change_permission: Type.Boolean(),
  }),
  detail: Type.Object({
    sid: Sid, name: Type.String(), username: Type.String(), description: Type.String(),
    logo_icon: Type.String(), logo_wordmark: Type.String(), credits: Money,
    credits_contact: Type.String({ description: 'who to contact for credits (SALES_CONTACT): an instance administrator grants them' }),
    dashboard: Type.Array(JsonValue()), metadata: MetadataOut, should_receive_weekly_digest: Type.Boolean(),
    personnel: Type.Array(Ref, { description: 'the active personnel, oldest first (at most 100; all through /organizations/personnel/)' }),
    updated_by: Type.Union([Ref, Type.Null()], { description: 'who changed the organization last (null: nobody since its creation)' }),
    date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
  }),
};

const optionalFields = {
  username: Type.Optional(Username),
  description: Type.Optional(Text(10_000)),
  logo_icon: Type.Optional(Text(2000, { description: 'the URL of the square logo' })),
  logo_wordmark: Type.Optional(Text(2000, { description: 'the URL of the wide logo' })),
  dashboard: Type.Optional(Type.Array(DashboardEntry, { maxItems: 100 })),
  metadata: Type.Optional(MetadataIn),
  should_receive_weekly_digest: Type.Optional(Type.Boolean()),
};
export const OrganizationCreate = Body({ name: Text(255, { minLength: 1 }), ...optionalFields });
export const OrganizationPatch = Body({ name: Type.Optional(Text(255, { minLength: 1 })), ...optionalFields });
