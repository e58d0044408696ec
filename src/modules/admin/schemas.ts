import { Type, type TSchema } from '@sinclair/typebox';
import { Body, Money, Nullable, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';

const Search = Type.Optional(Type.String({ maxLength: 255, description: 'only those whose name or email contains the text (case-insensitive)' }));

/** Every organization of the instance, as its administrators see it. */
const organizationFields = {
  sid: Sid, name: Type.String(), description: Type.String(), credits: Money,
  created_by: Nullable(Ref, 'the account that created it (null: gone)'),
  date_created: Timestamp,
  change_permission: Type.Boolean({ description: 'always true: an instance administrator grants credits' }),
};
export const AdminOrganizationShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }, { title: 'AdminOrganizationName' }),
  list: Type.Object(organizationFields, { title: 'AdminOrganizationList' }),
  detail: Type.Object(organizationFields, { title: 'AdminOrganizationDetail' }),
};
export const AdminOrganizationQuery = { search: Search };

/** Every account of the instance, as its administrators see it. */
const accountFields = {
  sid: Sid, name: Type.String({ description: '"First Last", or the email when both are blank' }),
  email: Type.String(), first_name: Type.String(), last_name: Type.String(),
  is_active: Type.Boolean({ description: 'false: disabled, nobody signs in with it and its keys do not work' }),
  is_email_verified: Type.Boolean(),
  is_instance_admin: Type.Boolean(),
  date_joined: Timestamp,
  change_permission: Type.Boolean({ description: 'whether the caller may disable or enable it: not their own account, not another administrator' }),
};
export const AdminAccountShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }, { title: 'AdminAccountName' }),
  list: Type.Object(accountFields, { title: 'AdminAccountList' }),
  detail: Type.Object(accountFields, { title: 'AdminAccountDetail' }),
};
export const AdminAccountQuery = { search: Search };
export const AdminAccountPatch = Body({
  is_active: Type.Boolean({ description: 'false disables the account (its sessions end at once); true enables it again' }),
}, { description: 'what an instance administrator changes of an account' });
(AdminAccountPatch as { title?: string }).title = 'AdminAccountUpdate';

export const CreditGrant = Body({
  amount: Type.String({ maxLength: 20, description: 'the credits to add: a decimal amount above 0 with at most 2 decimals', example: '25.00' }),
  note: Type.Optional(Text(500, { description: 'why, for the ledger (e.g. "invoice 2024-17")' })),
});
(CreditGrant as { title?: string }).title = 'CreditGrant';

/** One setting: the value in force, the environment's, whether an administrator replaced it, and what it means. */
const Setting = <T extends TSchema>(value: T) => Type.Object({
  value,
  environment_value: value,
  replaced: Type.Boolean({ description: 'true: an administrator set the value (null in a PATCH goes back to the environment\'s)' }),
  variable: Type.String({ description: 'the environment variable that gives the value otherwise' }),
  description: Type.String(),
});
export const InstanceSettings = Type.Object({
  initial_credits: Setting(Type.String({ description: 'a decimal amount, e.g. "10.00"' })),
  sales_contact: Setting(Type.String()),
  signup_enabled: Setting(Type.Boolean()),
  organizations_per_user: Setting(Type.Integer()),
  updated_by: Nullable(Ref, 'the administrator who last changed a setting'),
  date_updated: Nullable(Timestamp),
}, { title: 'InstanceSettings' });
export const InstanceSettingsPatch = Body({
  initial_credits: Type.Optional(Nullable(Type.String({ maxLength: 20, example: '10.00' }))),
  sales_contact: Type.Optional(Nullable(Text(254))),
  signup_enabled: Type.Optional(Nullable(Type.Boolean())),
  organizations_per_user: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100000 }))),
}, { description: 'a value replaces the environment\'s; null goes back to it; a setting left out stays as it is' });
(InstanceSettingsPatch as { title?: string }).title = 'InstanceSettingsUpdate';

export const OutboxHealth = Type.Object({
  pending: Type.Integer({ description: 'messages waiting to be delivered (those being retried included)' }),
  retrying: Type.Integer({ description: 'pending messages whose delivery failed at least once (the mail server refused or was away)' }),
  failed: Type.Integer({ description: 'messages the mail server refused for good (kept 7 days)' }),
  oldest_pending_seconds: Type.Number({ description: 'age of the oldest message waiting (0 when none waits)' }),
  sent_last_hour: Type.Integer(),
  last_failure: Nullable(Type.Object({ date_created: Timestamp, error: Type.String() }), "the newest message that failed or is being retried: when it was queued and the mail server's answer"),
}, { title: 'OutboxHealth' });
