// The mail worker: delivers the outbox over SMTP (SMTP_URL) or, without it, as .eml
// files under DATA_DIR/mail/. Any number of processes may run it: a message is claimed
// with FOR UPDATE SKIP LOCKED and leased, so only one process sends it. Its rounds are a
// job of the registry (jobs/registry.ts); a database that is away fails the round, which
// the registry logs and retries.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { query, type Db } from '../db/client.js';
import type { Job, JobRegistry } from './registry.js';
import { renderMail } from '../mail/compose.js';

const BATCH = 20;
const LEASE_SECONDS = 120;
const SEND_TIMEOUT_MS = 30_000;

interface Claimed {
  id: number;
  to_address: string;
  subject: string;
  body: string;
  html: string | null;
  attempts: number;
}

export interface MailWorkerOptions {
  db: Db;
  smtpUrl: string | null;
  mailFrom: string;
  dataDir: string;
  log: FastifyBaseLogger;
  /** Base of the retry back-off, in seconds (doubling per attempt, at most 15 minutes). */
  retrySeconds: number;
  /** How often the outbox is looked at when nothing kicks the worker (default 1 s). */
  pollSeconds?: number;
}

/** The job's name, in logs, metrics and traces. */
export const MAIL_JOB = 'mail-delivery';

export class MailWorker {
  private job: Job | null = null;
  /** The SMTP transport, or the .eml writer without SMTP_URL: made for the first message (nodemailer is not loaded at start-up). */
  private transport: Promise<Transporter> | null = null;

  constructor(private readonly options: MailWorkerOptions) {}

  private transporter(): Promise<Transporter> {
    return (this.transport ??= import('nodemailer').then(({ default: nodemailer }) => (this.options.smtpUrl
      ? nodemailer.createTransport({ url: this.options.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: SEND_TIMEOUT_MS } as never)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }))));
  }

  /**
   * Registers the delivery rounds as a job: the outbox is looked at every second (an
   * untraced check for due mail), and at once after kick(); a round that claimed a full
   * batch is followed by another at once.
   */
  register(jobs: JobRegistry): void {
    this.job = jobs.register({
      name: MAIL_JOB,
      everySeconds: this.options.pollSeconds ?? 1,
      firstSeconds: 0,
      due: () => this.due(),
      run: async () => ({ again: (await this.round()) === BATCH }),
    });
  }

  /** Asks for a delivery round now (after a commit that queued mail). */
  kick(): void {
    this.job?.kick();
  }

  /** Whether a message is waiting to be sent (one index probe). */
  private async due(): Promise<boolean> {
    const waiting = await query<{ id: number }>(this.options.db, sql`
      SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= now() LIMIT 1`);
    return waiting.length > 0;
  }

  /** Claims due messages and sends each; returns how many were claimed. */
  async round(): Promise<number> {
    const claimed = await query<Claimed>(this.options.db, sql`
      UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
       WHERE id IN (SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= now()
                     ORDER BY next_attempt_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING id, to_address, subject, body, html, attempts`);
    for (const mail of claimed) await this.deliver(mail);
    return claimed.length;
  }

  /**
   * Sends one claimed message. `attempts` is the fencing token: a claim that outlived its
   * lease (a slow batch) may have been taken over by another process, which raised it;
   * then this process neither sends nor records anything, so no message goes out twice.
   */
  private async deliver(mail: Claimed) {
    const fence = sql`id = ${mail.id} AND attempts = ${mail.attempts} AND status = 'pending'`;
    try {
      const held = await query<{ id: number }>(this.options.db, sql`
        UPDATE mail_outbox SET next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS}) WHERE ${fence} RETURNING id`);
      if (!held.length) return;
    } catch {
      return; // the database is away: the lease runs out and the message is retried
    }
    // Every message has an HTML alternative: its own, or its text's paragraphs (mail queued before HTML was written).
    const html = mail.html ?? renderMail({ intro: mail.body.split(/\n{2,}/) }).html;
    const message = { from: this.options.mailFrom, to: mail.to_address, subject: mail.subject, text: mail.body, html, messageId: `<outbox-${mail.id}@records-service>` };
    const transport = await this.transporter();
    try {
      if (this.options.smtpUrl) {
        await transport.sendMail(message);
      } else {
        const built = await transport.sendMail(message);
        const dir = path.join(this.options.dataDir, 'mail');
        // Only the service's user may read them: they hold reset, invitation and proof links (purged by retention.ts).
        await fs.mkdir(dir, { recursive: true, mode: 0o700 });
        const file = path.join(dir, `${String(mail.id).padStart(8, '0')}.eml`);
        await fs.writeFile(`${file}.tmp`, built.message as Buffer, { mode: 0o600 });
        await fs.chmod(`${file}.tmp`, 0o600); // a .tmp left by a crash keeps its mode otherwise
        await fs.rename(`${file}.tmp`, file);
      }
      await this.options.db.execute(sql`UPDATE mail_outbox SET status = 'sent', date_sent = now(), last_error = NULL WHERE ${fence}`);
    } catch (err) {
      const e = err as { responseCode?: number; message?: string };
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
      const delay = Math.min(this.options.retrySeconds * 2 ** (mail.attempts - 1), 900);
      this.options.log.warn({ mailId: mail.id, attempts: mail.attempts, permanent, error: e.message }, 'mail delivery failed');
      await this.options.db.execute(sql`
        UPDATE mail_outbox SET status = ${permanent ? 'failed' : 'pending'}, last_error = ${String(e.message ?? err).slice(0, 1000)},
               next_attempt_at = now() + make_interval(secs => ${delay})
         WHERE ${fence}`).catch(() => {});
    }
  }
}
