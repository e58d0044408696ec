import { Type } from '@sinclair/typebox';
import { Body, QueryBool, Ref, Sid, Text, Timestamp } from '../../core/schemas.js';

const From = Type.Union([Ref, Type.Null()], {
  description: "the sender's personnel record {sid, name}; null for a notification the service sent on its own (no sender)",
});

/** The spec's Notification table, field for field (`From` is capitalised). */
export const NotificationShapes = {
  name: Type.Object({ sid: Sid, name: Type.String({ description: 'the subject' }) }),
  list: Type.Object({ sid: Sid, name: Type.String(), From, is_read: Type.Boolean(), change_permission: Type.Boolean() }),
  detail: Type.Object({
    sid: Sid,
    name: Type.String({ description: 'the subject' }),
    From,
    parent: Type.Union([Ref, Type.Null()], { description: 'the notification this one answers, or null' }),
    body: Type.String({ description: 'the message' }),
    rows: Type.Array(Ref, { description: 'the rows the notification is about as {sid, name}; empty for a plain message' }),
    is_read: Type.Boolean(),
    updated_by: Type.Union([Type.String(), Type.Null()], { description: 'who last changed is_read with PATCH (full name); null otherwise' }),
    date_updated: Timestamp,
    date_created: Timestamp,
    change_permission: Type.Boolean({ description: 'true for the recipient of this copy' }),
  }),
};

const Recipient = Type.Object({
  sid: Type.String({ maxLength: 64, description: 'a personnel sid of the organization' }),
  name: Type.Optional(Type.String({ maxLength: 500, description: 'ignored; the name is read from the personnel record' })),
}, { additionalProperties: false });

export const NotificationCreate = Body({
  to: Type.Array(Recipient, { minItems: 1, maxItems: 100, description: 'the personnel who receive it: each gets their own notification' }),
  name: Text(255, { minLength: 1, description: 'the subject' }),
  body: Type.Optional(Text(100_000, { description: 'the message' })),
  parent: Type.Optional(Type.Union([Type.Object({
    sid: Type.String({ maxLength: 64 }),
    name: Type.Optional(Type.String({ maxLength: 500 })),
  }, { additionalProperties: false }), Type.Null()], { description: 'a notification the sender received or sent in this organization' })),
  should_email: Type.Optional(Type.Boolean({ description: "email every recipient, whatever their should_receive_notification_email" })),
});

export const NotificationPatch = Body({
  is_read: Type.Optional(Type.Boolean({ description: 'mark the notification read or unread again' })),
}, { description: 'Only is_read can change, and only by the recipient.' });

export const StreamQuery = Type.Object({
  organization__sid: Type.Optional(Type.String({ maxLength: 64, description: 'only notifications of this organization' })),
});

/** Filters of the inbox list. */
export const NotificationListQuery = {
  is_read: Type.Optional(QueryBool('only the read (true) or the unread (false) notifications; absent: all')),
};
