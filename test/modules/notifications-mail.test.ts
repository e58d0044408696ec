// Notification email through a real SMTP server (docs/notifications.md, Email): the
// smtp-server package listens on a free loopback port and a server started here sends to
// it (SMTP_URL). Each email arrives exactly once: with the SMTP server up, after it was
// down for the first attempts, after temporary refusals, and, on PostgreSQL, with two
// server processes delivering the same outbox.
//
// These servers get a database of their own (a fresh PGlite folder, or a fresh PostgreSQL
// database), so that no other server's mail worker takes their outbox.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { DB_KIND } from '../helpers/env.ts';
import { scratchDatabase } from '../helpers/scratch-db.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { unique } from '../helpers/factories.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { TestSmtpServer } from '../helpers/smtp.ts';
import { newOrganizationAt, proofFromSmtp, sendNotification } from '../helpers/notifications.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const step of cleanups.reverse()) await step().catch(() => {});
});

/** A fresh PostgreSQL database on the test run's server, dropped at the end. */
async function freshDatabase(): Promise<string> {
  const { url, drop } = await scratchDatabase('mail');
  cleanups.push(drop);
  return url;
}

/** `count` server processes on one database of their own, sending mail to `smtpUrl`. */
async function mailServers(smtpUrl: string, count = 1): Promise<RunningServer[]> {
  const databaseUrl = DB_KIND === 'postgres' ? await freshDatabase() : null;
  const env = { SMTP_URL: smtpUrl, MAIL_RETRY_SECONDS: '1', LOG_LEVEL: 'warn' };
  const servers: RunningServer[] = [];
  for (let i = 0; i < count; i += 1) {
    const server = await startServer({ databaseUrl, env });
    cleanups.push(() => server.stop());
    servers.push(server);
  }
  return servers;
}

async function smtp(options: Parameters<typeof TestSmtpServer.create>[0] = {}, listen = true): Promise<TestSmtpServer> {
  const server = listen ? await TestSmtpServer.start(options) : await TestSmtpServer.create(options);
  cleanups.push(() => server.stop());
  return server;
}

/** Every message to `address` whose subject contains `text`. */
const received = (server: TestSmtpServer, address: string, text: string) => server.to(address).filter((m) => m.subject.includes(text));

describe('notification email over SMTP', () => {
  // One server (its own database) for these tests, sending to one SMTP port; the SMTP
  // server on that port is stopped and started, or told to refuse, as each test needs.
  let mailbox: TestSmtpServer;
  let server: RunningServer;
  let world: Awaited<ReturnType<typeof newOrganizationAt>>;
  before(async () => {
    mailbox = await smtp();
    [server] = await mailServers(mailbox.url);
    world = await newOrganizationAt(server.baseUrl, 3, 'smtp', proofFromSmtp(mailbox));
  });

  test('exactly one message per email: should_email reaches every recipient; the setting reaches those who want it', async () => {
    const { org, admin, members: [ann, ben, cat] } = world;
    expectStatus(await cat.api.patch(`/organizations/personnel/detail/${cat.personnel.sid}/`, { should_receive_notification_email: true }), 200);

    const loud = `Loud ${unique('l')}`;
    await sendNotification(admin.api, org.sid, [ann.personnel, ben.personnel, cat.personnel], { name: loud, body: 'By SMTP.', should_email: true });
    const quiet = `Quiet ${unique('q')}`;
    await sendNotification(admin.api, org.sid, [ann.personnel, cat.personnel], { name: quiet });

    await mailbox.waitFor((all) => all.filter((m) => m.subject.includes(loud)).length === 3 && all.some((m) => m.subject.includes(quiet)),
      'three loud messages and the quiet one');
    await sleep(3_000); // room for a duplicate to show up
    for (const who of [ann, ben, cat]) {
      const mine = received(mailbox, who.email, loud);
      assert.equal(mine.length, 1, `${who.email} got the should_email message exactly once`);
      assert.match(mine[0].body, /By SMTP\./);
      assert.match(mine[0].messageId, /^<outbox-\d+@records-service>$/);
    }
    assert.equal(received(mailbox, cat.email, quiet).length, 1, 'the member who asked for notification email got it');
    assert.equal(received(mailbox, ann.email, quiet).length, 0, 'a member who did not ask got none');
    const ids = mailbox.received.map((m) => m.messageId);
    assert.equal(new Set(ids).size, ids.length, 'no Message-ID was delivered twice');
  });

  test('an SMTP server that is down delays the mail and loses none: it arrives once when the server is back', async () => {
    const { org, admin, members } = world;
    await mailbox.stop();
    const failures = () => server.logTail(2_000).split('\n').filter((l) => l.includes('mail delivery failed')).length;
    const before = failures();
    const name = `While down ${unique('d')}`;
    await sendNotification(admin.api, org.sid, members.map((m) => m.personnel), { name, should_email: true });

    // Two rounds of failed attempts per message (MAIL_RETRY_SECONDS=1, doubling), as the server's log shows.
    const deadline = Date.now() + 20_000;
    while (failures() - before < 2 * members.length && Date.now() < deadline) await sleep(200);
    assert.ok(failures() - before >= 2 * members.length, `the worker tried and failed while SMTP was down (${failures() - before} failures logged)`);
    assert.equal(mailbox.received.filter((m) => m.subject.includes(name)).length, 0);

    await mailbox.start();
    await mailbox.waitFor((all) => all.filter((m) => m.subject.includes(name)).length === members.length, 'every message after the SMTP server came back');
    await sleep(3_000);
    for (const who of members) assert.equal(received(mailbox, who.email, name).length, 1, `${who.email}: exactly one message`);
  });

  test('temporary refusals (451) are retried until accepted; one message in the end', async () => {
    const { org, admin, members: [ann] } = world;
    const refusedBefore = mailbox.refused;
    mailbox.refuseNext(2);
    const name = `Busy ${unique('b')}`;
    await sendNotification(admin.api, org.sid, [ann.personnel], { name, should_email: true });
    await mailbox.waitFor((all) => all.some((m) => m.subject.includes(name)), 'the message after two refusals');
    await sleep(2_000);
    assert.equal(mailbox.refused - refusedBefore, 2, 'the first two attempts were refused');
    assert.equal(received(mailbox, ann.email, name).length, 1, 'exactly one message');
  });
});

// PostgreSQL only (PGlite serves one process): not registered in the PGlite pass.
if (DB_KIND === 'postgres') describe('two server processes on one PostgreSQL database', () => {
  test('deliver each message exactly once', async () => {
    const mailbox = await smtp();
    const [a, b] = await mailServers(mailbox.url, 2);
    const { org, admin, members } = await newOrganizationAt(a.baseUrl, 6, 'twice', proofFromSmtp(mailbox));
    const through = [admin.api, admin.api.at(b.baseUrl)];
    const subject = `Once ${unique('o')}`;
    const sends = [];
    for (let i = 0; i < 10; i += 1) {
      sends.push(sendNotification(through[i % 2], org.sid, members.map((m) => m.personnel), { name: `${subject} #${i}`, should_email: true }));
    }
    await Promise.all(sends);
    const expected = 10 * members.length;
    await mailbox.waitFor((all) => all.filter((m) => m.subject.includes(subject)).length >= expected, `${expected} messages`, 60_000);
    await sleep(3_000);
    const mine = mailbox.received.filter((m) => m.subject.includes(subject));
    assert.equal(mine.length, expected, `exactly ${expected} messages, no duplicates`);
    assert.equal(new Set(mine.map((m) => m.messageId)).size, expected, 'each Message-ID once');
    for (const who of members) {
      for (let i = 0; i < 10; i += 1) {
        assert.equal(mine.filter((m) => m.rcptTo.includes(who.email.toLowerCase()) && m.subject.endsWith(`${subject} #${i}`)).length, 1,
          `${who.email} got message #${i} once`);
      }
    }
    const logs = `${a.logTail(400)}\n${b.logTail(400)}`;
    assert.ok(!/"level":50/.test(logs), 'no errors in the servers\' logs');
  });
});
