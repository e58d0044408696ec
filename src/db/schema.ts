// The database schema, in Drizzle's terms. Migrations under ./migrations are generated
// from this file by `npm run db:generate` (drizzle-kit) and checked in.
import { sql } from 'drizzle-orm';
import {
  customType,
  type AnyPgColumn, pgTable, text, boolean, timestamp, date, jsonb, numeric, integer, bigint, smallint, bigserial, index, uniqueIndex, check, primaryKey,
} from 'drizzle-orm/pg-core';

const created = () => timestamp('date_created', { withTimezone: true, precision: 6 }).notNull().defaultNow();
const updated = () => timestamp('date_updated', { withTimezone: true, precision: 6 }).notNull().defaultNow();

/** A person who signs in. A user invited by email has no password until they set one. */
export const users = pgTable('users', {
  sid: text('sid').primaryKey(),
  email: text('email').notNull(),
  /**
   * The address's key (src/core/email.ts normalizeEmail), by which every lookup finds the
   * account; unique. Null only for an account that migration 0031 could not give its own
   * key (see docs/decisions.md, "One way to compare addresses").
   */
  emailKey: text('email_key'),
  firstName: text('first_name').notNull().default(''),
  lastName: text('last_name').notNull().default(''),
  passwordHash: text('password_hash'),
  isActive: boolean('is_active').notNull().default(true),
  /** When the owner proved the sign-in email (null: unproven; the account can only prove it). */
  emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, precision: 6 }),
  dateJoined: timestamp('date_joined', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  /** An administrator of the whole instance (docs/decisions.md, "The instance's administrators"). */
  isInstanceAdmin: boolean('is_instance_admin').notNull().default(false),
}, (t) => [
  uniqueIndex('users_email_key_key').on(t.emailKey),
  // Whether the instance has an administrator (the first account's rule), and the admin screen's account list and search
  // (the address searched by its key, core/email.ts).
  index('users_instance_admin_idx').on(t.sid).where(sql`is_instance_admin`),
  index('users_joined_idx').on(t.dateJoined, t.sid),
  index('users_name_trgm_idx').using('gin', sql`(${t.firstName} || ' ' || ${t.lastName}) gin_trgm_ops`),
  index('users_email_trgm_idx').using('gin', sql`${t.emailKey} gin_trgm_ops`),
]);

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
}, (t) => [
  index('credentials_user_kind_idx').on(t.userSid, t.kind, t.dateCreated),
  // The retention job finds idle-expired sessions by their last use.
  index('credentials_session_last_used_idx').on(t.lastUsedAt).where(sql`kind = 'session'`),
]);

/** One-time tags for password resets and invitations, stored as hashes. */
export const passwordResets = pgTable('password_resets', {
  tagHash: text('tag_hash').primaryKey(),
  userSid: text('user_sid').notNull().references(() => users.sid, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 6 }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, precision: 6 }),
  /** An invitation's tag: the membership that setting the password with it accepts (no foreign key: a tag outlives nothing it names). */
  personnelSid: text('personnel_sid'),
  dateCreated: created(),
}, (t) => [index('password_resets_user_idx').on(t.userSid), index('password_resets_expires_idx').on(t.expiresAt)]);

/**
 * Addresses a user has proved to be theirs, as their keys (src/core/email.ts): mail other than a proof or an
 * invitation goes only to these (src/mail/outbox.ts).
 */
export const provenAddresses = pgTable('proven_addresses', {
  userSid: text('user_sid').notNull().references(() => users.sid, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  dateProven: timestamp('date_proven', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.userSid, t.email] })]);

/**
 * Browsers and clients that signed in to an account before (OWASP's device cookies): the
 * SHA-256 of the device cookie's token, per account it signed in to. Such a client has an
 * allowance of its own, untouched by strangers' failures (src/modules/accounts/devices.ts).
 */
export const trustedDevices = pgTable('trusted_devices', {
  tokenHash: text('token_hash').notNull(),
  userSid: text('user_sid').notNull().references(() => users.sid, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 6 }).notNull(),
  dateCreated: created(),
}, (t) => [
  primaryKey({ columns: [t.tokenHash, t.userSid] }),
  index('trusted_devices_user_idx').on(t.userSid),
  index('trusted_devices_expires_idx').on(t.expiresAt),
]);

/** One-time tags of the mailed unlock link (a sign-in slow-down), stored as hashes. */
export const unlockTags = pgTable('unlock_tags', {
  tagHash: text('tag_hash').primaryKey(),
  userSid: text('user_sid').notNull().references(() => users.sid, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 6 }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, precision: 6 }),
  dateCreated: created(),
}, (t) => [index('unlock_tags_user_idx').on(t.userSid), index('unlock_tags_expires_idx').on(t.expiresAt)]);

/** One-time tags mailed to an address to prove it (24 hours), stored as hashes. */
export const emailProofs = pgTable('email_proofs', {
  tagHash: text('tag_hash').primaryKey(),
  userSid: text('user_sid').notNull().references(() => users.sid, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 6 }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, precision: 6 }),
  dateCreated: created(),
  /** The tag also makes `email` the account's sign-in email (asked for by an account not proven yet). */
  changesSignin: boolean('changes_signin').notNull().default(false),
}, (t) => [index('email_proofs_user_idx').on(t.userSid), index('email_proofs_expires_idx').on(t.expiresAt)]);

/**
 * Fixed-window counters (src/core/rate-limit.ts): sign-in attempts per client and
 * account, per address and per account, and mail per sender and per recipient. A row
 * is dead once `expires_at` has passed (the retention job may delete it).
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  hits: integer('hits').notNull().default(0),
  windowStart: timestamp('window_start', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true, precision: 6 }).notNull(),
  /** Account-wide sign-in slow-down: the next attempt allowed. */
  nextAllowedAt: timestamp('next_allowed_at', { withTimezone: true, precision: 6 }),
}, (t) => [index('rate_limits_expires_idx').on(t.expiresAt)]);

export const organizations = pgTable('organizations', {
  sid: text('sid').primaryKey(),
  name: text('name').notNull(),
  /** Labii's handle of the organization: unique (compared lower-case), given from the name when not chosen. */
  username: text('username').notNull(),
  description: text('description').notNull().default(''),
  logoIcon: text('logo_icon').notNull().default(''),
  logoWordmark: text('logo_wordmark').notNull().default(''),
  dashboard: jsonb('dashboard').notNull().default(sql`'[]'::jsonb`),
  metadata: jsonb('metadata').notNull().default(sql`'[]'::jsonb`),
  shouldReceiveWeeklyDigest: boolean('should_receive_weekly_digest').notNull().default(false),
  createdBy: text('created_by').references(() => users.sid, { onDelete: 'set null' }),
  updatedBy: text('updated_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  uniqueIndex('organizations_username_key').on(sql`lower(${t.username})`),
  index('organizations_created_by_idx').on(t.createdBy),
  // The admin screen's list of every organization, and its search by name.
  index('organizations_created_idx').on(t.dateCreated, t.sid),
  index('organizations_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
]);

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
  /**
   * Whether the member set should_receive_notification_email themselves: then their choice wins over a sender's
   * should_email (docs/decisions.md, "Consent before mail").
   */
  notificationEmailChosen: boolean('notification_email_chosen').notNull().default(false),
  /**
   * When the person accepted this organization (the invitation's link, or the app's prompt); until then the
   * organization mails them nothing but the one invitation. Set at once for whoever creates an organization.
   */
  dateAccepted: timestamp('date_accepted', { withTimezone: true, precision: 6 }),
  /** Who added the person (named in the invitation and the app's prompt; a user sid, no foreign key: only ever shown). */
  invitedBy: text('invited_by'),
  updatedBy: text('updated_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  uniqueIndex('personnel_org_user_key').on(t.organizationSid, t.userSid),
  index('personnel_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  index('personnel_user_idx').on(t.userSid),
  // The list's `search`: name or email contains (ILIKE '%…%'), as trigram indexes.
  index('personnel_name_trgm_idx').using('gin', sql`(${t.firstName} || ' ' || ${t.lastName}) gin_trgm_ops`),
  index('personnel_email_trgm_idx').using('gin', sql`${t.email} gin_trgm_ops`),
  // The list's `is_administrator` filter: who in an organization can add someone to a project.
  index('personnel_org_admins_idx').on(t.organizationSid, t.dateCreated, t.sid).where(sql`is_administrator`),
]);

/**
 * Settings an instance administrator may change while the service runs (one row, id 1):
 * each null column means "the environment's value" (docs/decisions.md, "Instance settings").
 */
export const instanceSettings = pgTable('instance_settings', {
  id: smallint('id').primaryKey(),
  signupEnabled: boolean('signup_enabled'),
  initialCredits: numeric('initial_credits', { precision: 14, scale: 2 }),
  organizationsPerUser: integer('organizations_per_user'),
  salesContact: text('sales_contact'),
  updatedBy: text('updated_by').references(() => users.sid, { onDelete: 'set null' }),
  dateUpdated: updated(),
}, (t) => [
  check('instance_settings_one_row', sql`${t.id} = 1`),
  check('instance_settings_credits_check', sql`${t.initialCredits} >= 0`),
  check('instance_settings_organizations_check', sql`${t.organizationsPerUser} >= 1`),
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
  /** The HTML alternative of `body` (null: a text-only message). */
  html: text('html'),
  status: text('status', { enum: ['pending', 'sent', 'failed'] }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  lastError: text('last_error'),
  dateCreated: created(),
  dateSent: timestamp('date_sent', { withTimezone: true, precision: 6 }),
}, (t) => [
  index('mail_outbox_pending_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
  // The retention job: sent mail by when it was sent, failed mail by when it was queued.
  index('mail_outbox_sent_idx').on(t.dateSent).where(sql`status = 'sent'`),
  index('mail_outbox_failed_idx').on(t.dateCreated).where(sql`status = 'failed'`),
]);


export const projects = pgTable('projects', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  /** A project inside another of the organization (Labii's `parent`). */
  parentSid: text('parent_sid').references((): AnyPgColumn => projects.sid, { onDelete: 'set null' }),
  dateStart: date('date_start'),
  dateEnd: date('date_end'),
  isArchived: boolean('is_archived').notNull().default(false),
  /** Every member of the organization reads the project's records (as Project View). */
  openToOrganization: boolean('open_to_organization').notNull().default(false),
  metadata: jsonb('metadata').notNull().default(sql`'[]'::jsonb`),
  createdBy: text('created_by').references(() => users.sid, { onDelete: 'set null' }),
  updatedBy: text('updated_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('projects_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  // The list's is_archived filter, and the children of a project.
  index('projects_org_archived_idx').on(t.organizationSid, t.isArchived, t.dateCreated, t.sid),
  index('projects_parent_idx').on(t.parentSid),
  // The projects open to the organization (core/rules.ts, openToOrganization): the live standing reads them per organization.
  index('projects_org_open_idx').on(t.organizationSid).where(sql`open_to_organization`),
]);

/** A named group of an organization's personnel (Labii's team): a project member and a notification recipient. */
export const teams = pgTable('teams', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  isArchived: boolean('is_archived').notNull().default(false),
  createdBy: text('created_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('teams_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  index('teams_org_archived_idx').on(t.organizationSid, t.isArchived, t.dateCreated, t.sid),
]);

/** The personnel of a team. */
export const teamMembers = pgTable('team_members', {
  teamSid: text('team_sid').notNull().references(() => teams.sid, { onDelete: 'cascade' }),
  personnelSid: text('personnel_sid').notNull().references(() => personnel.sid, { onDelete: 'cascade' }),
  dateCreated: created(),
}, (t) => [
  primaryKey({ columns: [t.teamSid, t.personnelSid] }),
  index('team_members_personnel_idx').on(t.personnelSid),
]);

/** Project roles: Project Admin, Project Edit, Project View. */
export const projectMembers = pgTable('project_members', {
  sid: text('sid').primaryKey(),
  projectSid: text('project_sid').notNull().references(() => projects.sid, { onDelete: 'cascade' }),
  personnelSid: text('personnel_sid').notNull().references(() => personnel.sid, { onDelete: 'cascade' }),
  /** The team this membership was added through (Labii's `team: [...]`: one membership per member of the team then). */
  teamSid: text('team_sid').references(() => teams.sid, { onDelete: 'set null' }),
  permission: text('permission', { enum: ['admin', 'edit', 'view'] }).notNull(),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  uniqueIndex('project_members_project_personnel_key').on(t.projectSid, t.personnelSid),
  index('project_members_personnel_idx').on(t.personnelSid),
  index('project_members_team_idx').on(t.teamSid),
  check('project_members_permission_check', sql`${t.permission} IN ('admin', 'edit', 'view')`),
]);

export const tables = pgTable('record_tables', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  /** The plural name (Labii's name_plural; `name` in our shapes). */
  name: text('name').notNull(),
  nameSingular: text('name_singular').notNull().default(''),
  /** The prefix of the records' readable ids (uid): unique in the organization. */
  uniqueCode: text('unique_code').notNull(),
  description: text('description').notNull().default(''),
  icon: text('icon').notNull().default(''),
  tableType: text('table_type').notNull().default('record'),
  order: integer('order').notNull().default(0),
  isArchived: boolean('is_archived').notNull().default(false),
  /** A name for programs (Labii's `name_system`, e.g. "file"); '' for none. */
  nameSystem: text('name_system').notNull().default(''),
  metadata: jsonb('metadata').notNull().default(sql`'[]'::jsonb`),
  /** The number of the last row uid given in this table (a row's uid is its unique_code and the next number). */
  uidCounter: integer('uid_counter').notNull().default(0),
  createdBy: text('created_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('record_tables_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  uniqueIndex('record_tables_org_code_key').on(t.organizationSid, t.uniqueCode),
  // The list's filters: name_system, is_archived.
  index('record_tables_org_system_idx').on(t.organizationSid, t.nameSystem, t.dateCreated, t.sid),
  index('record_tables_org_archived_idx').on(t.organizationSid, t.isArchived, t.dateCreated, t.sid),
]);

/**
 * Widgets edit cells and perform workflow steps. Built-in widgets (organization_sid
 * null) are seeded by a migration; an organization adds its own, with a price.
 */
export const widgets = pgTable('widgets', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').references(() => organizations.sid, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  kind: text('kind').notNull().default('text'),
  price: numeric('price', { precision: 12, scale: 2 }).notNull().default('0'),
  addableAtReadonly: boolean('addable_at_readonly').notNull().default(false),
  // Labii's catalogue fields.
  icon: text('icon').notNull().default(''),
  notes: text('notes').notNull().default(''),
  usecase: text('usecase').notNull().default(''),
  documentationUrl: text('documentation_url').notNull().default(''),
  allowMultiple: boolean('allow_multiple').notNull().default(false),
  isReadonly: boolean('is_readonly').notNull().default(false),
  isPublic: boolean('is_public').notNull().default(true),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('widgets_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  check('widgets_price_check', sql`${t.price} >= 0`),
]);

export const columns = pgTable('record_columns', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  tableSid: text('table_sid').notNull().references(() => tables.sid, { onDelete: 'cascade' }),
  widgetSid: text('widget_sid').notNull().references(() => widgets.sid),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  /** The value a new record's cell starts with; '' for none. */
  defaultValue: text('default_value').notNull().default(''),
  isRequired: boolean('is_required').notNull().default(false),
  isHidden: boolean('is_hidden').notNull().default(false),
  isArchived: boolean('is_archived').notNull().default(false),
  nameSystem: text('name_system').notNull().default(''),
  metadata: jsonb('metadata').notNull().default(sql`'[]'::jsonb`),
  /** A widget's settings for this column (a number's unit, a choice's options, a foreign key's table). */
  settings: jsonb('settings').notNull().default(sql`'{}'::jsonb`),
  order: integer('order').notNull().default(0),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('record_columns_table_order_idx').on(t.tableSid, t.order, t.sid),
  index('record_columns_org_idx').on(t.organizationSid, t.dateCreated, t.sid),
  // The list's filters: name_system, is_archived.
  index('record_columns_org_system_idx').on(t.organizationSid, t.nameSystem),
  index('record_columns_table_archived_idx').on(t.tableSid, t.isArchived, t.order, t.sid),
]);

/**
 * A record of a table, in a project. `version` and `last_hash` are the head of its
 * version chain, updated with every appended version under the row's lock.
 */
export const rows = pgTable('record_rows', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  tableSid: text('table_sid').notNull().references(() => tables.sid, { onDelete: 'cascade' }),
  projectSid: text('project_sid').notNull().references(() => projects.sid, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  isLocked: boolean('is_locked').notNull().default(false),
  isArchived: boolean('is_archived').notNull().default(false),
  /** The row's readable number in its table (e.g. SMP-000123), given once at creation and never changed. */
  uid: text('uid').notNull().default(''),
  isTemplate: boolean('is_template').notNull().default(false),
  openToOrganization: boolean('open_to_organization').notNull().default(false),
  metadata: jsonb('metadata').notNull().default(sql`'[]'::jsonb`),
  version: integer('version').notNull().default(0),
  lastHash: text('last_hash').notNull().default(''),
  createdBy: text('created_by').references(() => users.sid, { onDelete: 'set null' }),
  /** Who made the row's latest version. */
  updatedBy: text('updated_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  // Labii's filters on the row list: uid (exact, unique in a table), owner__sid, the date ranges, is_archived.
  uniqueIndex('record_rows_table_uid_key').on(t.tableSid, t.uid).where(sql`uid <> ''`),
  index('record_rows_org_uid_idx').on(t.organizationSid, t.uid),
  index('record_rows_uid_trgm_idx').using('gin', sql`${t.uid} gin_trgm_ops`),
  index('record_rows_created_by_idx').on(t.createdBy, t.dateCreated, t.sid),
  index('record_rows_org_updated_idx').on(t.organizationSid, t.dateUpdated, t.sid),
  index('record_rows_org_archived_idx').on(t.organizationSid, t.isArchived, t.dateCreated, t.sid),
  index('record_rows_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  // The rows open to the organization, counted row by row for members without a role (rows/repository.ts, openRowCount).
  index('record_rows_org_open_idx').on(t.organizationSid, t.tableSid).where(sql`open_to_organization`),
  index('record_rows_table_order_idx').on(t.tableSid, t.dateCreated, t.sid),
  index('record_rows_project_order_idx').on(t.projectSid, t.dateCreated, t.sid),
  // The grid (GET /tables/row/list/table/{sid}/grid/): its orderings within a table, the
  // row states it filters on, and `search` (name contains, case-insensitive) by trigrams.
  index('record_rows_table_name_idx').on(t.tableSid, t.name, t.sid),
  index('record_rows_table_updated_idx').on(t.tableSid, t.dateUpdated, t.sid),
  index('record_rows_table_state_idx').on(t.tableSid, t.isArchived, t.isLocked, t.dateCreated, t.sid),
  index('record_rows_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
]);

/**
 * The projects of a row besides its first (record_rows.project_sid): a row may belong to
 * several projects and is read through any of them (docs/decisions.md, "Rows in several projects").
 */
export const rowProjects = pgTable('record_row_projects', {
  rowSid: text('row_sid').notNull().references(() => rows.sid, { onDelete: 'cascade' }),
  projectSid: text('project_sid').notNull().references(() => projects.sid, { onDelete: 'cascade' }),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  dateCreated: created(),
}, (t) => [
  primaryKey({ columns: [t.rowSid, t.projectSid] }),
  index('record_row_projects_project_idx').on(t.projectSid, t.rowSid),
  index('record_row_projects_org_idx').on(t.organizationSid, t.rowSid),
]);

/**
 * A section of a row (Labii's notebook pages): ordered rich text inside the record. Each
 * change appends a version of the row, whose data then holds the row's sections.
 */
export const sections = pgTable('sections', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  rowSid: text('row_sid').notNull().references(() => rows.sid, { onDelete: 'cascade' }),
  tableSid: text('table_sid').notNull().references(() => tables.sid, { onDelete: 'cascade' }),
  widgetSid: text('widget_sid').references(() => widgets.sid),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  order: integer('order').notNull(),
  /** The content, as the JSON text of what was written (a rich-text document, or a string). */
  data: text('data').notNull().default('null'),
  isArchived: boolean('is_archived').notNull().default(false),
  /** The row's version that this section's latest change made. */
  version: integer('version').notNull().default(0),
  createdBy: text('created_by').references(() => users.sid, { onDelete: 'set null' }),
  updatedBy: text('updated_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('sections_row_order_idx').on(t.rowSid, t.order, t.sid),
  index('sections_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  index('sections_table_idx').on(t.tableSid, t.dateCreated, t.sid),
]);

/**
 * Saved filters of a table's rows (Labii's Filter, /tables/filter/): a name and the row
 * list's query they stand for, applied with `?filter__sid=` on the row list. Read by their
 * creator, the personnel they name in `users` and the organization's Admins.
 */
export const savedFilters = pgTable('saved_filters', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  tableSid: text('table_sid').notNull().references(() => tables.sid, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  /** The row list's query the filter stands for, as a query string (e.g. `is_archived=false&search=2`). */
  query: text('query').notNull().default(''),
  /** The personnel sids it is shared with (Labii's `users`). */
  users: jsonb('users').notNull().default(sql`'[]'::jsonb`),
  isArchived: boolean('is_archived').notNull().default(false),
  /** The personnel record of its creator. */
  ownerSid: text('owner_sid').references(() => personnel.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('saved_filters_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  index('saved_filters_table_order_idx').on(t.tableSid, t.dateCreated, t.sid),
  index('saved_filters_users_idx').using('gin', t.users),
]);

/**
 * An organization's activity log (Labii's Activity, /activities/activity/): who did what to
 * which object, when, in the transaction of the write it records: by triggers (migration
 * 0039) each version of a row (its cells, sections, fields, states) and each project created
 * or changed; by their services (activities/log.ts) tables, columns, personnel and project
 * members created, changed or removed. Read by the organization's Admins.
 */
export const activities = pgTable('activities', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  /** Who did it (a user sid; no foreign key: the log outlives an account, and a write never fails for its log line). */
  userSid: text('user_sid'),
  /** The kind of object: row, project, table, column, member (a project membership), personnel. */
  model: text('model').notNull(),
  objectSid: text('object_sid').notNull(),
  /** The object's name when it was done. */
  target: text('target').notNull().default(''),
  /** Created, Updated or Deleted. */
  action: text('action').notNull(),
  /** What changed (a row's version message; the fields that changed of other objects). */
  field: text('field').notNull().default(''),
  newData: text('new_data').notNull().default(''),
  /** The row's version the change made (rows only). */
  version: integer('version'),
  dateCreated: created(),
}, (t) => [
  index('activities_org_idx').on(t.organizationSid, t.id),
  index('activities_org_user_idx').on(t.organizationSid, t.userSid, t.id),
  index('activities_org_model_idx').on(t.organizationSid, t.model, t.id),
  index('activities_object_idx').on(t.objectSid, t.id),
  index('activities_org_date_idx').on(t.organizationSid, t.dateCreated),
]);

/**
 * Exact row counts per table and project, kept by triggers on record_rows (migration
 * 0012) in the transaction that inserts, deletes or changes a row, so a list's count
 * does not grow with the table: the rows, and how many of them are archived, locked, and
 * both (the grid's filters). Each (table, project) has up to 16 stripes, picked by the
 * writing connection, so concurrent writers of one table rarely wait for each other;
 * a count sums its stripes.
 */
export const rowCounts = pgTable('record_row_counts', {
  organizationSid: text('organization_sid').notNull(),
  tableSid: text('table_sid').notNull(),
  projectSid: text('project_sid').notNull(),
  stripe: smallint('stripe').notNull(),
  rows: bigint('rows', { mode: 'number' }).notNull().default(0),
  archived: bigint('archived', { mode: 'number' }).notNull().default(0),
  locked: bigint('locked', { mode: 'number' }).notNull().default(0),
  archivedLocked: bigint('archived_locked', { mode: 'number' }).notNull().default(0),
}, (t) => [
  primaryKey({ columns: [t.tableSid, t.projectSid, t.stripe] }),
  index('record_row_counts_org_idx').on(t.organizationSid),
]);

/** The value of one row in one column. */
export const cells = pgTable('cells', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  rowSid: text('row_sid').notNull().references(() => rows.sid, { onDelete: 'cascade' }),
  columnSid: text('column_sid').notNull().references(() => columns.sid, { onDelete: 'cascade' }),
  widgetSid: text('widget_sid').notNull().references(() => widgets.sid),
  data: text('data').notNull().default(''),
  createdBy: text('created_by').references(() => users.sid, { onDelete: 'set null' }),
  updatedBy: text('updated_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  uniqueIndex('cells_row_column_key').on(t.rowSid, t.columnSid),
  index('cells_row_order_idx').on(t.rowSid, t.dateCreated, t.sid),
  // Labii's cell filters: column__sid (and __in), with data__isnull (an empty cell is Labii's null).
  index('cells_column_order_idx').on(t.columnSid, t.dateCreated, t.sid),
  // An upsert import's key column: its lines' values find their rows by the value's md5 (a
  // cell's data may pass a B-tree entry's size, its hash never; imports/repository.ts).
  index('cells_column_data_md5_idx').on(t.columnSid, sql`md5(${t.data})`),
  index('cells_column_filled_idx').on(t.columnSid, t.dateCreated, t.sid).where(sql`data <> ''`),
  index('cells_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
]);

/**
 * The hash-chained history of a row: appended by records_append_version() (see the
 * version_chain migration), never updated except for `commit`.
 */
export const versions = pgTable('versions', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  rowSid: text('row_sid').notNull().references(() => rows.sid, { onDelete: 'cascade' }),
  version: integer('version').notNull(),
  hash: text('hash').notNull(),
  previousHash: text('previous_hash').notNull(),
  data: jsonb('data').notNull(),
  activityMessage: text('activity_message').notNull().default(''),
  commit: text('commit'),
  updatedBy: text('updated_by').notNull(),
  dateCreated: timestamp('date_created', { withTimezone: true, precision: 6 }).notNull(),
  dateUpdated: timestamp('date_updated', { withTimezone: true, precision: 6 }).notNull(),
}, (t) => [
  uniqueIndex('versions_row_version_key').on(t.rowSid, t.version),
  index('versions_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
]);

/**
 * An organization's credits, striped over CREDIT_SHARDS rows (docs/credits.md): the
 * balance is their sum. A write debits the shard of its database connection, so one
 * organization's writers do not wait for each other's commits.
 */
export const creditShards = pgTable('credit_shards', {
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  shard: integer('shard').notNull(),
  credits: numeric('credits', { precision: 14, scale: 2 }).notNull().default('0'),
}, (t) => [
  primaryKey({ columns: [t.organizationSid, t.shard] }),
  check('credit_shards_credits_check', sql`${t.credits} >= 0`),
]);

/** Every change of an organization's credits: who, when, which cell, amount, balance after. */
export const creditLedger = pgTable('credit_ledger', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  sid: text('sid').notNull().unique(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  amount: numeric('amount', { precision: 14, scale: 2 }).notNull(),
  balanceAfter: numeric('balance_after', { precision: 14, scale: 2 }).notNull(),
  reason: text('reason').notNull(),
  cellSid: text('cell_sid'),
  rowSid: text('row_sid'),
  userSid: text('user_sid'),
  dateCreated: created(),
}, (t) => [index('credit_ledger_org_idx').on(t.organizationSid, t.id)]);

/** A workflow: ordered steps that act on a row. `table_sid` set: specific to that table. */
export const workflows = pgTable('workflows', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  tableSid: text('table_sid').references(() => tables.sid, { onDelete: 'set null' }),
  parent: integer('parent'),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  isArchived: boolean('is_archived').notNull().default(false),
  createdBy: text('created_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('workflows_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  index('workflows_table_idx').on(t.tableSid, t.dateCreated, t.sid),
]);

/** An action of a workflow, performed by a widget; `order` is unique within the workflow. */
export const steps = pgTable('steps', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  workflowSid: text('workflow_sid').notNull().references(() => workflows.sid, { onDelete: 'cascade' }),
  widgetSid: text('widget_sid').notNull().references(() => widgets.sid),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  order: integer('order').notNull(),
  data: jsonb('data').notNull().default(sql`'{}'::jsonb`),
  /** Labii's step fields: the step it follows (a branch), where it leads, its colour in the app. */
  parentSid: text('parent_sid'),
  redirectTo: text('redirect_to'),
  color: text('color').notNull().default(''),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  uniqueIndex('steps_workflow_order_key').on(t.workflowSid, t.order),
  index('steps_widget_idx').on(t.widgetSid, t.dateCreated, t.sid),
  index('steps_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
]);

/** One run of a workflow for a row: where it is, its variables and data. */
export const executions = pgTable('workflow_executions', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  workflowSid: text('workflow_sid').notNull().references(() => workflows.sid, { onDelete: 'cascade' }),
  rowSid: text('row_sid').notNull().references(() => rows.sid, { onDelete: 'cascade' }),
  status: text('status', { enum: ['running', 'waiting', 'completed', 'failed'] }).notNull().default('running'),
  currentStepSid: text('current_step_sid'),
  waitingFor: text('waiting_for'),
  variables: jsonb('variables').notNull().default(sql`'{}'::jsonb`),
  data: jsonb('data').notNull().default(sql`'{}'::jsonb`),
  error: text('error'),
  startedBy: text('started_by').references(() => users.sid, { onDelete: 'set null' }),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('workflow_executions_workflow_row_idx').on(t.workflowSid, t.rowSid, t.dateCreated),
  index('workflow_executions_row_idx').on(t.rowSid, t.dateCreated),
  index('workflow_executions_org_idx').on(t.organizationSid, t.dateCreated, t.sid),
]);

/** The execution log: time, who, event, message (and the step it is about). */
export const executionLog = pgTable('workflow_execution_log', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  executionSid: text('execution_sid').notNull().references(() => executions.sid, { onDelete: 'cascade' }),
  stepSid: text('step_sid'),
  userSid: text('user_sid'),
  event: text('event').notNull(),
  status: text('status').notNull().default('info'),
  message: text('message').notNull().default(''),
  dateCreated: created(),
}, (t) => [index('workflow_execution_log_execution_idx').on(t.executionSid, t.id)]);

/**
 * A notification: one per recipient. The recipient reads, marks and deletes their copy
 * (deleting hides it from them; the sender still sees what they sent).
 */
export const notifications = pgTable('notifications', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  senderSid: text('sender_sid').references(() => personnel.sid, { onDelete: 'set null' }),
  recipientSid: text('recipient_sid').notNull().references(() => personnel.sid, { onDelete: 'cascade' }),
  parentSid: text('parent_sid'),
  name: text('name').notNull(),
  body: text('body').notNull().default(''),
  rows: jsonb('rows').notNull().default(sql`'[]'::jsonb`),
  isRead: boolean('is_read').notNull().default(false),
  shouldEmail: boolean('should_email').notNull().default(false),
  isDeletedByRecipient: boolean('is_deleted_by_recipient').notNull().default(false),
  updatedBy: text('updated_by'),
  dateCreated: created(),
  dateUpdated: updated(),
}, (t) => [
  index('notifications_recipient_inbox_idx').on(t.recipientSid, t.dateCreated, t.sid).where(sql`NOT is_deleted_by_recipient`),
  index('notifications_sender_idx').on(t.senderSid, t.dateCreated),
  index('notifications_parent_idx').on(t.parentSid),
]);

/** Scheduled jobs (weekly digest …): one row per job and period, claimed by one process only. */
export const jobRuns = pgTable('job_runs', {
  name: text('name').notNull(),
  period: text('period').notNull(),
  status: text('status').notNull().default('running'),
  dateCreated: created(),
  dateFinished: timestamp('date_finished', { withTimezone: true, precision: 6 }),
}, (t) => [uniqueIndex('job_runs_name_period_key').on(t.name, t.period)]);

/**
 * Idempotency keys of POST requests (header Idempotency-Key), per user, kept 24 hours:
 * a retry with the same key and body gets the first answer again.
 */
export const idempotencyKeys = pgTable('idempotency_keys', {
  userSid: text('user_sid').notNull(),
  key: text('key').notNull(),
  requestHash: text('request_hash').notNull(),
  status: text('status', { enum: ['processing', 'done'] }).notNull().default('processing'),
  statusCode: integer('status_code'),
  contentType: text('content_type'),
  responseBody: text('response_body'),
  dateCreated: created(),
}, (t) => [
  uniqueIndex('idempotency_keys_user_key').on(t.userSid, t.key),
  index('idempotency_keys_created_idx').on(t.dateCreated),
]);

/**
 * A file's descriptor (issue 25): who uploaded which bytes under which name. The bytes are
 * the stored object `sha256` (src/storage/), kept once however many descriptors name it.
 */
export const files = pgTable('files', {
  sid: text('sid').primaryKey(),
  organizationSid: text('organization_sid').notNull().references(() => organizations.sid, { onDelete: 'cascade' }),
  sha256: text('sha256').notNull(),
  size: bigint('size', { mode: 'number' }).notNull(),
  /** Sniffed from the bytes, never the client's word. */
  mediaType: text('media_type').notNull(),
  /** The name as typed (docs/decisions.md, Files: names). */
  name: text('name').notNull(),
  uploadedBy: text('uploaded_by').notNull().references(() => personnel.sid),
  /**
   * The row whose file cell it was attached to (null: an upload not attached yet). Once
   * attached it stays the row's for good — its versions refer to it — and its access is the
   * row's (docs/decisions.md, "Files: file cells").
   */
  rowSid: text('row_sid').references(() => rows.sid, { onDelete: 'cascade' }),
  dateCreated: created(),
}, (t) => [
  index('files_org_order_idx').on(t.organizationSid, t.dateCreated, t.sid),
  index('files_row_order_idx').on(t.rowSid, t.dateCreated, t.sid),
  // Whether a stored object is still referred to (the GC) is a look-up by hash.
  index('files_sha256_idx').on(t.sha256),
  index('files_uploaded_by_idx').on(t.uploadedBy),
  check('files_size_check', sql`${t.size} >= 0`),
]);

/**
 * The stored objects the database knows of: an upload writes its row (locking it) before it
 * puts the object in place, and the GC deletes an object only under the same row lock, so
 * the two never cross (docs/decisions.md, Files: the GC).
 */
export const fileObjects = pgTable('file_objects', {
  sha256: text('sha256').primaryKey(),
  size: bigint('size', { mode: 'number' }).notNull(),
  /** The last time an upload put (or found) this object in storage, or a file naming it was deleted: the GC's grace period starts here. */
  dateStored: timestamp('date_stored', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  /** Not looked at by the thumbnail job yet (jobs/thumbnails.ts): every new object is. */
  thumbnailPending: boolean('thumbnail_pending').notNull().default(true),
}, (t) => [
  index('file_objects_date_stored_idx').on(t.dateStored),
  index('file_objects_thumbnail_pending_idx').on(t.dateStored).where(sql`thumbnail_pending`),
]);

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/**
 * A stored image's thumbnail (WebP, at most THUMBNAIL_PIXELS a side), made in the background
 * from the object's bytes, kept with the database (small) and gone with the object (the GC).
 */
export const fileThumbnails = pgTable('file_thumbnails', {
  sha256: text('sha256').primaryKey().references(() => fileObjects.sha256, { onDelete: 'cascade' }),
  mediaType: text('media_type').notNull(),
  bytes: bytea('bytes').notNull(),
  width: integer('width').notNull(),
  height: integer('height').notNull(),
  dateCreated: created(),
});

/** The bytes of an organization's file descriptors, against FILES_QUOTA_BYTES (counted in the upload's transaction). */
export const fileUsage = pgTable('file_usage', {
  organizationSid: text('organization_sid').primaryKey().references(() => organizations.sid, { onDelete: 'cascade' }),
  bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
}, (t) => [check('file_usage_bytes_check', sql`${t.bytes} >= 0`)]);
