// Instance settings an administrator changes while the service runs (docs/decisions.md,
// "Instance settings"): each is an environment variable whose value an administrator may
// replace; the replacement is a row of the database (instance_settings), so every process
// reads the same one at its next use. Only settings that are safe to change at run time
// are here: none decides where the service listens, where data or mail goes, or how
// credentials are checked.
import { sql } from 'drizzle-orm';
import { query, type Db } from '../../db/client.js';
import { errors } from '../../core/errors.js';
import type { Actor } from '../../core/auth.js';
import type { Config } from '../../config.js';
import type { AppContext } from '../../context.js';

/** The settings, in the order the admin screen shows them: environment variable, meaning. */
export const SETTINGS = {
  initial_credits: {
    variable: 'INITIAL_CREDITS',
    description: 'The credits a new organization starts with (every write through a priced widget spends some). '
      + 'Existing organizations keep their balance; an administrator grants them more.',
  },
  sales_contact: {
    variable: 'SALES_CONTACT',
    description: 'Who to contact for credits: named in the refusal of a write the credits do not cover '
      + '("Your organization does not have enough credits, contact …!") and where the app says how to get credits.',
  },
  signup_enabled: {
    variable: 'SIGNUP_ENABLED',
    description: 'Whether anyone may create an account (POST /accounts/signup/). Off, accounts come from invitations and the CLI.',
  },
  organizations_per_user: {
    variable: 'ORGANIZATIONS_PER_USER',
    description: 'How many organizations one account may create through the API (each starts with the initial credits).',
  },
} as const;

export type SettingName = keyof typeof SETTINGS;

/** The values in force. */
export interface Settings {
  initial_credits: string;
  sales_contact: string;
  signup_enabled: boolean;
  organizations_per_user: number;
}

interface StoredRow {
  initial_credits: string | null;
  sales_contact: string | null;
  signup_enabled: boolean | null;
  organizations_per_user: number | null;
  updated_by_sid: string | null;
  updated_by_name: string | null;
  date_updated: string | null;
}

/** The environment's values. */
function fromEnvironment(config: Config): Settings {
  return {
    initial_credits: config.initialCredits,
    sales_contact: config.salesContact,
    signup_enabled: config.signupEnabled,
    organizations_per_user: config.organizationsPerUser,
  };
}

/** What an administrator stored (null: the environment's value), with who and when. */
async function stored(db: Db): Promise<StoredRow | undefined> {
  const [row] = await query<StoredRow>(db, sql`
    SELECT s.initial_credits::text AS initial_credits, s.sales_contact, s.signup_enabled, s.organizations_per_user,
           u.sid AS updated_by_sid, coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email) AS updated_by_name,
           to_char(s.date_updated AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS date_updated
      FROM instance_settings s LEFT JOIN users u ON u.sid = s.updated_by WHERE s.id = 1`);
  return row;
}

/** The settings in force now: an administrator's value where one is stored, else the environment's (one query). */
export async function currentSettings(ctx: { db: Db; config: Config }): Promise<Settings> {
  const env = fromEnvironment(ctx.config);
  const row = await stored(ctx.db);
  return {
    initial_credits: row?.initial_credits ?? env.initial_credits,
    sales_contact: row?.sales_contact ?? env.sales_contact,
    signup_enabled: row?.signup_enabled ?? env.signup_enabled,
    organizations_per_user: row?.organizations_per_user ?? env.organizations_per_user,
  };
}

/** The sales contact in force, for the credits refusal (read only when a write is refused). */
export async function currentSalesContact(db: Db, environment: string): Promise<string> {
  const [row] = await query<{ sales_contact: string | null }>(db, sql`SELECT sales_contact FROM instance_settings WHERE id = 1`);
  return row?.sales_contact ?? environment;
}

/** GET /admin/settings/: each setting's value in force, the environment's, whether it is replaced, and its meaning. */
export async function describeSettings(ctx: AppContext) {
  const env = fromEnvironment(ctx.config);
  const row = await stored(ctx.db);
  const one = <K extends SettingName>(name: K) => {
    const replaced = row?.[name] ?? null;
    return {
      value: (replaced ?? env[name]) as Settings[K],
      environment_value: env[name],
      replaced: replaced !== null,
      ...SETTINGS[name],
    };
  };
  return {
    initial_credits: one('initial_credits'),
    sales_contact: one('sales_contact'),
    signup_enabled: one('signup_enabled'),
    organizations_per_user: one('organizations_per_user'),
    updated_by: row?.updated_by_sid ? { sid: row.updated_by_sid, name: row.updated_by_name ?? '' } : null,
    date_updated: row?.date_updated ?? null,
  };
}

const MONEY = /^\d{1,12}(\.\d{1,2})?$/;

export type SettingsChange = { [K in SettingName]?: Settings[K] | null };

/**
 * PATCH /admin/settings/: a value replaces the environment's; null goes back to it. One
 * statement (the row is made on first use), so concurrent changes of different settings
 * both hold.
 */
export async function changeSettings(ctx: AppContext, actor: Actor, change: SettingsChange) {
  if (change.initial_credits != null && !MONEY.test(change.initial_credits)) {
    throw errors.field('initial_credits', 'Enter an amount like 10.00 (at most 2 decimals and 12 digits before the point, not negative).');
  }
  if (change.sales_contact != null && change.sales_contact.trim() === '') throw errors.field('sales_contact', 'Enter who to contact, or null for the environment\'s value.');
  const names = (Object.keys(change) as SettingName[]).filter((name) => name in SETTINGS);
  if (names.length) {
    const value = (name: SettingName) => (name === 'initial_credits' && change[name] != null ? sql`${change[name]}::numeric` : sql`${change[name]}`);
    await ctx.db.execute(sql`
      INSERT INTO instance_settings (id, ${sql.join(names.map((n) => sql.identifier(n)), sql`, `)}, updated_by, date_updated)
      VALUES (1, ${sql.join(names.map(value), sql`, `)}, ${actor.userSid}, now())
      ON CONFLICT (id) DO UPDATE SET ${sql.join(names.map((n) => sql`${sql.identifier(n)} = excluded.${sql.identifier(n)}`), sql`, `)},
        updated_by = excluded.updated_by, date_updated = now()`);
  }
  return describeSettings(ctx);
}
