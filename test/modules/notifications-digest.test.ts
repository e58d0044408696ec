// The weekly digest (docs/notifications.md, Weekly digest): each member who wants it
// gets one email listing their unread notifications of the last complete ISO week, sent
// by exactly one process even when several check at once (two on PostgreSQL).
//
// A week cannot pass during a test: the notifications are made through the API, then,
// with every server stopped, moved one week back in the database (and any claim of that
// week made meanwhile forgotten); servers checking every second then send the digest.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { DB_KIND } from '../helpers/env.ts';
import { scratchDatabase } from '../helpers/scratch-db.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { unique } from '../helpers/factories.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { TestSmtpServer } from '../helpers/smtp.ts';
import { newOrganizationAt, proofFromSmtp, notificationPaths, sendNotification } from '../helpers/notifications.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const step of cleanups.reverse()) await step().catch(() => {});
});

/** Runs SQL on the servers' database while no server runs. */
async function withDatabase(target: { databaseUrl: string | null; dataDir: string }, statements: string[]): Promise<void> {
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      for (const s of statements) await client.query(s);
    } finally {
      await client.end();
    }
    return;
  }
  const db = await PGlite.create(path.join(target.dataDir, 'pgdata'), { extensions: { pg_trgm } });
  try {
    for (const s of statements) await db.query(s);
  } finally {
    await db.close();
  }
}

async function freshTarget(): Promise<{ databaseUrl: string | null; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-digest-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  if (DB_KIND !== 'postgres') return { databaseUrl: null, dataDir };
  const { url, drop } = await scratchDatabase('digest');
  cleanups.push(drop);
  return { databaseUrl: url, dataDir };
}

test('one digest per member who wants it, listing last week\'s unread notifications, from one process only', async () => {
  const mailbox = await TestSmtpServer.start();
  cleanups.push(() => mailbox.stop());
  const target = await freshTarget();
  const env = { SMTP_URL: mailbox.url, MAIL_RETRY_SECONDS: '1' };

  // Last week's notifications, made through the API.
  const setup = await startServer({ ...target, env: { ...env, DIGEST_CHECK_SECONDS: '3600' } });
  let world: Awaited<ReturnType<typeof newOrganizationAt>>;
  const subjects = [0, 1, 2].map((i) => `Weekly ${i} ${unique('w')}`);
  try {
    // The fourth was added but never accepted the organization: it mails them no digest.
    world = await newOrganizationAt(setup.baseUrl, 4, 'digest', proofFromSmtp(mailbox), { unaccepted: 1 });
    const [wants, reader, quiet, unaccepted] = world.members;
    for (const who of [wants, reader, unaccepted]) {
      expectStatus(await who.api.patch(`/organizations/personnel/detail/${who.personnel.sid}/`, { should_receive_weekly_digest: true }), 200, 'opting in');
    }
    for (const subject of subjects) {
      await sendNotification(world.admin.api, world.org.sid, [wants.personnel, reader.personnel, quiet.personnel, unaccepted.personnel], { name: subject });
    }
    // The reader reads them all: nothing unread, so no digest.
    for (const n of (await reader.api.get(notificationPaths.list(world.org.sid, 'list'))).json.results) {
      expectStatus(await reader.api.get(notificationPaths.detail(n.sid)), 200, 'reading');
    }
  } finally {
    await setup.stop();
  }
  await withDatabase(target, [
    "UPDATE notifications SET date_created = date_created - interval '7 days'",
    "DELETE FROM job_runs WHERE name = 'weekly-digest'",
  ]);

  // Every process checks every second; on PostgreSQL two of them, started together, race for the week.
  const servers: RunningServer[] = await Promise.all(Array.from({ length: DB_KIND === 'postgres' ? 2 : 1 }, async () => {
    const server = await startServer({ ...target, env: { ...env, DIGEST_CHECK_SECONDS: '1' } });
    cleanups.push(() => server.stop());
    return server;
  }));
  assert.ok(servers.length >= 1);
  const [wants, reader, quiet, unaccepted] = world!.members;
  const isDigest = (m: { subject: string }) => /weekly digest/i.test(m.subject);
  await mailbox.waitFor((all) => all.some((m) => isDigest(m) && m.rcptTo.includes(wants.email.toLowerCase())), 'the digest', 60_000);
  await sleep(4_000); // several more checks by every process: no second digest
  const digests = mailbox.received.filter(isDigest);
  assert.equal(digests.length, 1, `exactly one digest in all: ${digests.map((d) => `${d.rcptTo} ${d.subject}`).join('; ')}`);
  const [digest] = digests;
  assert.deepEqual(digest.rcptTo, [wants.email.toLowerCase()], 'to the member who wants it and has unread notifications');
  assert.match(digest.subject, /3 unread/);
  assert.match(digest.subject, new RegExp(world!.org.name));
  for (const subject of subjects) assert.match(digest.body, new RegExp(subject), `the digest lists "${subject}"`);
  assert.equal(mailbox.to(reader.email).filter(isDigest).length, 0, 'a member with nothing unread gets no digest');
  assert.equal(mailbox.to(quiet.email).filter(isDigest).length, 0, 'a member who did not ask gets no digest');
  assert.equal(mailbox.to(unaccepted.email).filter(isDigest).length, 0, 'a member who never accepted the organization gets no digest');
});
