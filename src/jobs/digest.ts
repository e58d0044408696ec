// The weekly digest: once per ISO week, each member with should_receive_weekly_digest
// gets one email listing their notifications of the week before that are still unread.
// Every server process checks on a timer (a job of jobs/registry.ts); the week is claimed in job_runs (INSERT … ON
// CONFLICT DO NOTHING) in the same transaction that queues the emails, so exactly one
// process sends it, and a process that dies half-way leaves the week to the next check.
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { JobSpec } from './registry.js';
import { query, type Db } from '../db/client.js';
import { enqueueMail, provenAddress, type OutgoingMail } from '../mail/outbox.js';
import { activeMember } from '../core/rules.js';
import { plainName } from '../mail/compose.js';

export const DIGEST_JOB = 'weekly-digest';
const LISTED = 50;
const CHUNK = 500;
const DAY_MS = 86_400_000;

/** An ISO 8601 week (Monday to Monday, UTC): its key "2025-W03" and its bounds. */
export interface IsoWeek {
  key: string;
  start: Date;
  end: Date;
}

/** The ISO week that holds `date` (UTC). */
export function isoWeekOf(date: Date): IsoWeek {
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const weekday = (day.getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const start = new Date(day.getTime() - weekday * DAY_MS);
  const thursday = new Date(start.getTime() + 3 * DAY_MS); // a week belongs to the year of its Thursday
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return { key: `${year}-W${String(week).padStart(2, '0')}`, start, end: new Date(start.getTime() + 7 * DAY_MS) };
}

/** The week given as "2025-W03", or null when that is not a week. */
export function parseIsoWeek(key: string): IsoWeek | null {
  const m = /^(\d{4})-W(\d{2})$/.exec(key);
  if (!m) return null;
  const [year, week] = [Number(m[1]), Number(m[2])];
  const jan4 = new Date(Date.UTC(year, 0, 4)); // always in week 1
  const found = isoWeekOf(new Date(isoWeekOf(jan4).start.getTime() + (week - 1) * 7 * DAY_MS));
  return found.key === key ? found : null;
}

/** The week the digest sent at `now` is about: the last complete week. */
export function digestWeek(now: Date): IsoWeek {
  return isoWeekOf(new Date(isoWeekOf(now).start.getTime() - DAY_MS));
}

interface Digest {
  user_sid: string;
  email: string;
  name: string;
  organization: string;
  unread: number;
  items: { name: string; from: string | null; date: string }[];
}

function digestMail(raw: Digest, week: IsoWeek): OutgoingMail {
  // Names others chose, as plain text that cannot pass for a link (mail/compose.ts).
  const d = { ...raw, name: plainName(raw.name), organization: plainName(raw.organization),
    items: raw.items.map((i) => ({ ...i, name: plainName(i.name, 120), from: i.from === null ? null : plainName(i.from) })) };
  const listed = d.items.slice(0, LISTED);
  const lines = [
    `Hello ${d.name},`,
    '',
    `You have ${d.unread} unread notification${d.unread === 1 ? '' : 's'} from ${week.key} in ${d.organization}:`,
    '',
    ...listed.map((i) => `  - ${i.date.slice(0, 10)}  ${i.name}${i.from ? ` (from ${i.from})` : ''}`),
  ];
  if (d.unread > listed.length) lines.push(`  … and ${d.unread - listed.length} more.`);
  lines.push('', 'Read them in the Records Service: GET /notifications/notification/list/organization/<organization sid>/list/', '',
    'You receive this digest because should_receive_weekly_digest is on in your member settings.');
  return {
    to: d.email, subject: `[${d.organization}] Your weekly digest: ${d.unread} unread (${week.key})`, body: lines.join('\n'), recipient: { userSid: d.user_sid },
  };
}

/**
 * Sends the digest of `week` unless some process has already claimed it: in one
 * transaction, claims the week in job_runs and queues one email per member who wants the
 * digest and has unread notifications of that week. Returns whether this call claimed
 * the week and how many emails it queued.
 */
export async function runWeeklyDigest(db: Db, week: IsoWeek): Promise<{ period: string; claimed: boolean; emails: number }> {
  return db.transaction(async (tx) => {
    const claimed = await query<{ period: string }>(tx, sql`
      INSERT INTO job_runs (name, period) VALUES (${DIGEST_JOB}, ${week.key}) ON CONFLICT (name, period) DO NOTHING RETURNING period`);
    if (!claimed.length) return { period: week.key, claimed: false, emails: 0 };
    const digests = await query<Digest>(tx, sql`
      SELECT p.user_sid, p.email, coalesce(nullif(trim(p.first_name || ' ' || p.last_name), ''), p.email) AS name, o.name AS organization,
             count(*)::int AS unread,
             json_agg(json_build_object(
               'name', n.name,
               'from', CASE WHEN s.sid IS NULL THEN NULL ELSE coalesce(nullif(trim(s.first_name || ' ' || s.last_name), ''), s.email) END,
               'date', to_char(n.date_created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
               ORDER BY n.date_created DESC, n.sid) AS items
        FROM personnel p
        JOIN organizations o ON o.sid = p.organization_sid
        JOIN notifications n ON n.recipient_sid = p.sid AND NOT n.is_deleted_by_recipient AND NOT n.is_read
                            AND n.date_created >= ${week.start.toISOString()}::timestamptz AND n.date_created < ${week.end.toISOString()}::timestamptz
        LEFT JOIN personnel s ON s.sid = n.sender_sid
       WHERE p.should_receive_weekly_digest AND ${activeMember.sql('p')}
         -- Only to whoever accepted the organization (modules/personnel/consent.ts).
         AND p.date_accepted IS NOT NULL
         AND ${provenAddress(sql`p.user_sid`, sql`p.email`)}
       GROUP BY p.sid, o.name`);
    const mails = digests.map((d) => digestMail(d, week));
    for (let i = 0; i < mails.length; i += CHUNK) await enqueueMail(tx, mails.slice(i, i + CHUNK));
    await tx.execute(sql`UPDATE job_runs SET status = 'done', date_finished = now() WHERE name = ${DIGEST_JOB} AND period = ${week.key}`);
    return { period: week.key, claimed: true, emails: mails.length };
  });
}

/**
 * The job: checks every `checkSeconds` whether the digest of the last complete week is
 * due, in every process; the first check comes soon after start, so a week missed while
 * no process ran is sent.
 */
export function digestJob(options: { db: Db; log: FastifyBaseLogger; checkSeconds: number; onQueued: () => void }): JobSpec {
  return {
    name: DIGEST_JOB,
    everySeconds: options.checkSeconds,
    firstSeconds: Math.min(options.checkSeconds, 30),
    run: async () => {
      const result = await runWeeklyDigest(options.db, digestWeek(new Date()));
      if (result.claimed) {
        options.log.info(result, 'weekly digest queued');
        if (result.emails) options.onQueued();
      }
    },
  };
}
