// Notifications (spec: Notification, its endpoints and the is_read transition), and
// their live stream. Behaviour the spec leaves open: docs/notifications.md.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineDetail, defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { NotificationCreate, NotificationListQuery, NotificationPatch, NotificationShapes } from './schemas.js';
import { queryBool } from '../../core/schemas.js';
import { countInbox, pageInbox } from './repository.js';
import { serializeNotification } from './serializers.js';
import { changeNotification, createNotification, deleteNotification, loadNotification, readNotification } from './service.js';
import { LiveNotifications } from './live.js';
import { registerNotificationStream } from './stream.js';
import { withTotal, bodyRecordBytes } from '../../core/pagination.js';
import { lockOwnRow } from '../../core/record-lock.js';
import { notifications } from '../../db/schema.js';

/** The `is_read` filter of the inbox: absent lists every notification. */
const isReadFilter = (value: string | undefined): boolean | undefined => (value === undefined ? undefined : queryBool(value));

export function registerNotifications(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/notifications/notification',
    tag: 'notifications',
    levels: { organization: organizationLevel },
    shapes: NotificationShapes,
    get: {
      summary: "The caller's notifications in an organization (User: any active member)",
      description: 'Only what was sent to the caller and not deleted by them, newest first. '
        + '`is_read=false` lists only the unread ones (its `count` is the unread count), `is_read=true` only the read ones.',
      query: NotificationListQuery,
      allowed: (scope) => permissions.notification.list(scope.membership),
      addPermission: (scope) => permissions.notification.send(scope.membership),
      // The detail shape carries a notification's message (free text, JSON): read and written by
      // their real sizes, a page in one read unless they are large (core/answer-stream.ts).
      recordBytes: (serializer) => (serializer === 'detail' ? bodyRecordBytes(ctx.config) : undefined),
      sized: true,
      counted: true,
      count: (scope, q) => countInbox(ctx.db, scope.membership.personnelSid, isReadFilter(q.is_read)),
      rows: async (scope, q, serializer, page) => {
        const found = await pageInbox(ctx.db, scope.membership.personnelSid, page.limit, page.offset, isReadFilter(q.is_read), page.maxBytes);
        return withTotal(found.map((row) => serializeNotification(row, serializer, scope.membership.personnelSid)), found);
      },
    },
    post: {
      summary: 'Send a notification to members of the organization (User: any active member)',
      description: 'Body {to: [{sid, name}], name, body, parent: {sid, name}, should_email}. Each personnel record in `to` '
        + '(active members of this organization; otherwise 400) gets their own copy. `parent` must be a notification the caller '
        + 'received or sent in this organization (otherwise 400). A recipient is emailed when `should_email` is true or their '
        + 'should_receive_notification_email is on. Answers 201 with the first recipient\'s copy, as the sender sees it.',
      body: NotificationCreate,
      allowed: (scope) => permissions.notification.send(scope.membership),
      answersDetail: true,
      create: async (scope, body, _q, serializer) =>
        serializeNotification(await createNotification(ctx, scope.membership, body, scope.actor), serializer, scope.membership.personnelSid),
    },
  });

  defineDetail(app, ctx, {
    path: '/notifications/notification',
    lock: lockOwnRow(notifications),
    tag: 'notifications',
    shape: NotificationShapes.detail,
    // For If-Match: the notification as the caller sees it, without GET's marking it read.
    current: async (actor, sid) => {
      const { row, viewer } = await loadNotification(ctx, actor, sid);
      return serializeNotification(row, 'detail', viewer);
    },
    get: {
      summary: 'One notification; reading it as its recipient marks it read',
      description: 'The recipient reads their copy (is_read becomes true); the sender reads what they sent (nothing changes). '
        + 'Anyone else, and a recipient after deleting it: 404.',
      handler: async (actor, sid) => {
        const { row, viewer } = await readNotification(ctx, actor, sid);
        return serializeNotification(row, 'detail', viewer);
      },
    },
    patch: {
      summary: 'Mark a notification read or unread (its recipient)',
      description: 'Body {is_read}. Only is_read can change, and only by the recipient (the sender: 403; anyone else: 404). '
        + 'Subject, body, sender, parent and rows never change; other fields are refused (400).',
      body: NotificationPatch,
      handler: async (actor, sid, body) => {
        const { row, viewer } = await changeNotification(ctx, actor, sid, body);
        return serializeNotification(row, 'detail', viewer);
      },
    },
    delete: {
      summary: "Remove a notification from the caller's inbox (its recipient)",
      description: 'Answers {}. Only the recipient\'s own copy leaves their inbox; other recipients keep theirs and the sender '
        + 'can still read it. The sender: 403; anyone else: 404.',
      handler: (actor, sid) => deleteNotification(ctx, actor, sid),
    },
  });

  const live = new LiveNotifications({
    hub: ctx.live,
    database: ctx.database,
    log: app.log,
    onEvent: (event) => {
      if (event.email) ctx.mail.kick();
    },
  });
  registerNotificationStream(app, ctx, live);
}
