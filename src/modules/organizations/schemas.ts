import { Type } from '@sinclair/typebox';
import { Body, Money, Sid, Text, Timestamp } from '../../core/schemas.js';

export const OrganizationShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({ sid: Sid, name: Type.String(), description: Type.String(), credits: Money, change_permission: Type.Boolean() }),
  detail: Type.Object({
    sid: Sid, name: Type.String(), description: Type.String(), credits: Money,
    credits_contact: Type.String({ description: 'who to contact for credits (SALES_CONTACT): an instance administrator grants them' }),
    date_created: Timestamp, date_updated: Timestamp, change_permission: Type.Boolean(),
  }),
};

export const OrganizationCreate = Body({ name: Text(255, { minLength: 1 }), description: Type.Optional(Text(10_000)) });
export const OrganizationPatch = Body({ name: Type.Optional(Text(255, { minLength: 1 })), description: Type.Optional(Text(10_000)) });
