// The database schema, in Drizzle's terms. Migrations under ./migrations are generated
// from this file by `npm run db:generate` (drizzle-kit) and checked in.
import { sql } from 'drizzle-orm';
import {
  pgTable, text, boolean, timestamp, date, jsonb, numeric, integer, bigserial, index, uniqueIndex, primaryKey,
} from 'drizzle-orm/pg-core';

const created = () => timestamp('date_created', { withTimezone: true, precision: 6 }).notNull().defaultNow();
const updated = () => timestamp('date_updated', { withTimezone: true, precision: 6 }).notNull().defaultNow();

/** A person who signs in. A user invited by email has no password until they set one. */
export const users = pgTable('users', {
  sid: text('sid').primaryKey(),
  email: text('email').notNull(),
  firstName: text('first_name').notNull().default(''),
  lastName: text('last_name').notNull().default(''),
  passwordHash: text('password_hash'),
  isActive: boolean('is_active').notNull().default(true),
  dateJoined: timestamp('date_joined', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
}, (t) => [uniqueIndex('users_email_lower_key').on(sql`lower(${t.email})`)]);

/**
 * Session tokens (from POST /accounts/auth/) and API keys (created by a user), stored
 * only as SHA-256 hashes of the secret.
 */
export const credentials = pgTable('credentials', {
  keyHash: text('key_hash').primaryKey(),
  sid: text('sid').notNull().unique(),
  userSid: text('user_sid').notNull().references(() => users.sid, { onDelete: 'cascade' }),
  kind: text('kind', { enum: ['session', 'apikey'] }).notNull(),
  name: text('name').notNull().default(''),
  dateCreated: created(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
}, (t) => [index('credentials_user_kind_idx').on(t.userSid, t.kind, t.dateCreated)]);

/** One-time tags for password resets and invitations, stored as hashes. */
export const passwordResets = pgTable('password_resets', {
  tagHash: text('tag_hash').primaryKey(),
  userSid: text('user_sid').notNull().references(() => users.sid, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 6 }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, precision: 6 }),
  dateCreated: created(),
}, (t) => [index('password_resets_user_idx').on(t.userSid)]);

/** Failed sign-in attempts per account and per client address, for rate limiting. */
export const loginFailures = pgTable('login_failures', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull().default(0),
  windowStart: timestamp('window_start', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
});

export const organizations = pgTable('organizations', {
  sid: text('sid').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  credits: numeric('credits', { precision: 14, scale: 2 }).notNull().default('0'),
  createdBy: text('created_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
});

/** A member of an organization. Name and contact fields are the member's own, per organization. */
export const personnel = pgTable('personnel', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  userSid: text('user_sid').notNull().references(() => users.sid, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  firstName: text('first_name').notNull().default(''),
  lastName: text('last_name').notNull().default(''),
  title: text('title').notNull().default(''),
  dateStart: date('date_start').notNull().default(sql`CURRENT_DATE`),
  dateEnd: date('date_end'),
  isAdministrator: boolean('is_administrator').notNull().default(false),
  isArchived: boolean('is_archived').notNull().default(false),
  isUseSingleSignOn: boolean('is_use_single_sign_on').notNull().default(false),
  dashboard: jsonb('dashboard').notNull().default(sql`'[]'::jsonb`),
  metadata: jsonb('metadata').notNull().default(sql`'[]'::jsonb`),
  shouldReceiveWeeklyDigest: boolean('should_receive_weekly_digest').notNull().default(false),
  shouldReceiveStatementDigest: boolean('should_receive_statement_digest').notNull().default(false),
  shouldReceiveMentionNotification: boolean('should_receive_mention_notification').notNull().default(true),
  shouldReceiveRecordChangeNotification: boolean('should_receive_record_change_notification').notNull().default(true),
  shouldReceiveNotificationEmail: boolean('should_receive_notification_email').notNull().default(false),
  updatedBy: text('updated_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  uniqueIndex('personnel_org_user_key').on(t.organizationSid, t.userSid),
  index('personnel_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  index('personnel_user_idx').on(t.userSid),
]);

/**
 * The transactional mail outbox: written in the same transaction as the change that
 * sends mail, delivered by the mail worker (src/jobs/mail.ts).
 */
export const mailOutbox = pgTable('mail_outbox', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  toAddress: text('to_address').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  status: text('status', { enum: ['pending', 'sent', 'failed'] }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  lastError: text('last_error'),
  dateCreated: created(),
  dateSent: timestamp('date_sent', { withTimezone: true, precision: 6 }),
}, (t) => [index('mail_outbox_pending_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`)]);

export { primaryKey };
