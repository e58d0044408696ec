// A real SMTP server for tests (the smtp-server package) on a loopback port: it keeps
// every message it accepts, can refuse the first attempts with a temporary error, and
// can be started late on a port chosen in advance (an SMTP server that is "down").
import { SMTPServer } from 'smtp-server';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseEml, type Mail } from './mail.ts';
import { freePort } from './server.ts';

export interface Received extends Mail {
  /** The Message-ID header. */
  messageId: string;
  /** The envelope recipients, lower-cased. */
  rcptTo: string[];
}

export interface SmtpOptions {
  /** The port to listen on (default: a free one). */
  port?: number;
  /** Answer this many messages with "451 try again later" before accepting any. */
  refuseFirst?: number;
}

export class TestSmtpServer {
  readonly received: Received[] = [];
  /** Messages refused so far (temporary errors). */
  refused = 0;
  private server: SMTPServer | null = null;
  private refuseUntil: number;

  private constructor(readonly port: number, refuseFirst: number) {
    this.refuseUntil = refuseFirst;
  }

  /** Answers the next `count` messages with "451 try again later". */
  refuseNext(count: number): void {
    this.refuseUntil = this.refused + count;
  }

  /** A server on `options.port` (or a free port), not listening yet: call start(). */
  static async create(options: SmtpOptions = {}): Promise<TestSmtpServer> {
    return new TestSmtpServer(options.port ?? (await freePort()), options.refuseFirst ?? 0);
  }

  /** A listening server. */
  static async start(options: SmtpOptions = {}): Promise<TestSmtpServer> {
    const smtp = await TestSmtpServer.create(options);
    await smtp.start();
    return smtp;
  }

  /** The SMTP_URL a service uses to send here. */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Listens (again, after stop()). */
  start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (this.refused < this.refuseUntil) {
            this.refused += 1;
            const err = Object.assign(new Error('Try again later'), { responseCode: 451 });
            callback(err);
            return;
          }
          const mail = parseEml(Buffer.concat(chunks).toString('utf8'));
          this.received.push({
            ...mail,
            messageId: mail.headers['message-id'] ?? '',
            rcptTo: session.envelope.rcptTo.map((a) => a.address.toLowerCase()),
          });
          callback();
        });
      },
    });
    server.on('error', () => {});
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  /** Stops listening: the SMTP server is "down" until start() again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The messages received for `address`. */
  to(address: string): Received[] {
    return this.received.filter((m) => m.rcptTo.includes(address.toLowerCase()));
  }

  /** Waits until `predicate` holds for the received messages; fails after `timeoutMs`. */
  async waitFor(predicate: (received: Received[]) => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline) {
        throw new Error(`${what}: not received within ${timeoutMs} ms (received ${this.received.length}: `
          + `${this.received.map((m) => `${m.rcptTo.join(',')} "${m.subject}"`).join('; ')})`);
      }
      await sleep(100);
    }
  }
}
