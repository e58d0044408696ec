// The live machinery of a server process, shared by every stream of the API (the
// notifications', the row changes', and whatever streams next): the one LISTEN, the
// open streams and their bound per credential, the re-check of their credentials and
// standings, and the access changes that reach a viewer's streams at once. A stream's
// module says what its stream hears (its channel and its filter) through a StreamPolicy;
// the hub keeps everything else.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/client.js';
import type { ServiceMetrics } from '../metrics.js';
import type { OrgRole, ProjectRole } from '../access.js';
import { errors } from '../errors.js';
import type { JobSpec } from '../../jobs/registry.js';
import { openEventStream, type EventStream } from './event-stream.js';
import { Fanout } from './fanout.js';
import { LiveListener, type ChannelHandlers } from './listener.js';
import { streamSlots, type StreamSlots } from './slots.js';
import { standingsOf, validStreamCredentials, type Standing } from './standing.js';
import { committedBefore, snapshotNow, type Snapshot } from './snapshot.js';
import { safeMessage } from '../log-redaction.js';

/** The channel of access changes: pg_notify'd by triggers on personnel and project_members (migration 0020). */
export const ACCESS_CHANNEL = 'records_access';
/**
 * How often each process re-checks its open streams' credentials and standings: a stream
 * ends within this long of a logout, an API key's deletion, a password reset (which deletes
 * the account's session tokens), an idle session, a member archived or past date_end.
 */
export const STREAM_CHECK_SECONDS = 2;
/** What a 429 for one stream too many asks the client to wait (a stream closed frees its place at once). */
const STREAMS_RETRY_SECONDS = 10;

/** A change of a viewer's own access, as the database announced it (`project` null: their personnel record). */
interface AccessNotice {
  user: string;
  organization: string;
  project: string | null;
  /** The writing transaction's id (pg_current_xact_id()): a stream whose opening snapshot sees it is not told. */
  xid?: string;
}

/** What a stream tells its client of a change of the viewer's access: where, and their roles there now. */
export interface AccessChange {
  organization: string;
  project: string | null;
  /** The organization role now (null: no longer personnel there). */
  role: OrgRole | null;
  /** The project role now, when `project` is named (null: none). */
  permission: ProjectRole | null;
}

/** What a stream's module decides about its stream; the hub calls it. */
export interface StreamPolicy {
  /**
   * The viewer's standing now (the periodic re-check, or at once after a change of their
   * access): narrow what the stream hears, or answer why it ends (null: it goes on).
   */
  restand(standing: Standing): string | null;
  /** A change of the viewer's access, after restand: a stream that tells its client sends `event: access`. */
  access?(change: AccessChange): void;
}

/** Who opens a stream: the request's credential and its user. */
export interface StreamOwner {
  credentialSid: string;
  userSid: string;
}

const NO_SNAPSHOT: Promise<Snapshot | null> = Promise.resolve(null);

/** The stream of an entry tracked a moment before its stream opens. */
const NOT_YET_OPEN: EventStream = { closed: true, send() {}, end() {}, close() {} };

interface OpenStream extends StreamOwner {
  policy: StreamPolicy;
  stream: EventStream;
  /** Removes it from the streams of its user. */
  leave: () => void;
  /** The database's snapshot as it opened (read once it is tracked): access changes it sees are older than the stream. */
  opened: Promise<Snapshot | null>;
}

export interface LiveHubOptions {
  database: Database;
  databaseUrl: string | null;
  log: FastifyBaseLogger;
  tokenIdleMinutes: number;
  /** The most streams one credential may hold open on this server (LIVE_STREAMS_PER_CREDENTIAL; core/live/slots.ts). */
  streamsPerCredential: number;
  metrics: Pick<ServiceMetrics, 'streamOpened' | 'streamClosed'>;
}

export class LiveHub {
  private readonly listener: LiveListener;
  private readonly streams = new Set<OpenStream>();
  private readonly byUser = new Fanout<OpenStream>();
  private readonly slots: StreamSlots;
  /** Access notices heard and not yet applied, by user. */
  private pending = new Map<string, AccessNotice[]>();
  /**
   * While access changes are being applied, the events of the other channels wait here, in
   * the order heard: an event committed after an access change is filtered by the standing
   * that change made (a role taken away hides the very next write; a role given shows it).
   */
  private held: Array<() => void> = [];
  private holding = false;
  /** Re-checks and access changes apply standings one at a time, so an older reading never replaces a newer one. */
  private serial: Promise<void> = Promise.resolve();

  constructor(private readonly options: LiveHubOptions) {
    this.listener = new LiveListener(options);
    this.slots = streamSlots(options.streamsPerCredential);
    this.listener.listen(ACCESS_CHANNEL, { hear: (payload) => this.hearAccess(payload) });
  }

  /** Adds a channel to the one LISTEN of the process (before the app is ready). */
  listen(channel: string, handlers: ChannelHandlers): void {
    this.listener.listen(channel, { ...handlers, hear: (payload) => this.inOrder(() => handlers.hear(payload)) });
  }

  private inOrder(deliver: () => void) {
    if (this.holding) this.held.push(deliver);
    else deliver();
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  /**
   * Opens an event stream for `owner` (the route has authorized it): 429 when the
   * credential already holds its bound of streams. `onClose` runs once, however it closes.
   */
  async open(request: FastifyRequest, reply: FastifyReply, owner: StreamOwner, policy: StreamPolicy, onClose: () => void = () => {}): Promise<EventStream> {
    if (!(await this.slots.take(owner.credentialSid))) {
      const bound = this.options.streamsPerCredential;
      throw errors.quotaExceeded(`This credential holds ${bound} open live streams, the most allowed: close one before opening another.`, STREAMS_RETRY_SECONDS);
    }
    // Tracked before it opens: a client that left while the route read the database closes
    // the stream at once, and that close must find the entry to give the slot back.
    const entry: OpenStream = { credentialSid: owner.credentialSid, userSid: owner.userSid, policy, leave: () => {}, stream: NOT_YET_OPEN, opened: NO_SNAPSHOT };
    this.streams.add(entry);
    entry.leave = this.byUser.add(owner.userSid, entry);
    // Read once the stream hears access changes: every change its snapshot does not see is heard.
    entry.opened = snapshotNow(this.options.database.db);
    this.options.metrics.streamOpened();
    entry.stream = openEventStream(request, reply, () => {
      this.untrack(entry);
      onClose();
    });
    return entry.stream;
  }

  /** How many streams are open in this process. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Closes every open stream without a word (the server stops). */
  closeAll(): void {
    for (const entry of [...this.streams]) entry.stream.close();
  }

  /**
   * Re-checks every open stream of this process in two queries: a stream whose credential
   * is gone ends with `Invalid token.`; every other's policy gets its viewer's standing now.
   * Reads the database, so it works whichever process the revocation went through.
   */
  recheck(): Promise<void> {
    return this.serially(async () => {
      if (!this.streams.size) return;
      const all = [...this.streams];
      const { database, tokenIdleMinutes } = this.options;
      const valid = await validStreamCredentials(database.db, tokenIdleMinutes, [...new Set(all.map((s) => s.credentialSid))]);
      const standings = await standingsOf(database.db, [...new Set(all.map((s) => s.userSid))]);
      for (const entry of all) {
        if (!this.streams.has(entry)) continue; // closed meanwhile
        if (!valid.has(entry.credentialSid)) entry.stream.end('Invalid token.');
        else this.restand(entry, standings.get(entry.userSid) ?? new Map());
      }
    });
  }

  private untrack(entry: OpenStream) {
    if (!this.streams.delete(entry)) return;
    entry.leave();
    this.slots.free(entry.credentialSid);
    this.options.metrics.streamClosed();
  }

  /** Gives `entry` its viewer's standing; false when the stream ended. */
  private restand(entry: OpenStream, standing: Standing): boolean {
    const reason = entry.policy.restand(standing);
    if (reason === null) return true;
    entry.stream.end(reason);
    return false;
  }

  private serially(task: () => Promise<void>): Promise<void> {
    const run = this.serial.then(task);
    this.serial = run.catch(() => {});
    return run;
  }

  /** An access change committed: if the person has streams here, their standing is re-read at once (batched). */
  private hearAccess(payload: string) {
    let notice: AccessNotice;
    try {
      notice = JSON.parse(payload) as AccessNotice;
    } catch {
      this.options.log.warn({ payload: payload.slice(0, 200) }, 'live: unreadable access change');
      return;
    }
    if (!this.byUser.has(notice.user)) return;
    const list = this.pending.get(notice.user);
    if (list) list.push(notice);
    else this.pending.set(notice.user, [notice]);
    if (this.holding) return;
    this.holding = true;
    setImmediate(() => void this.flushAccess());
  }

  /** Applies the access changes heard (and those heard meanwhile), then delivers the events held. */
  private async flushAccess() {
    try {
      await this.serially(() => this.applyAccess());
    } catch (err) {
      this.options.log.warn({ error: safeMessage(err) }, 'live: applying an access change failed; the next re-check applies it');
    }
    if (this.pending.size) {
      setImmediate(() => void this.flushAccess());
      return;
    }
    this.holding = false;
    for (const deliver of this.held.splice(0)) {
      try {
        deliver();
      } catch (err) {
        this.options.log.warn({ error: safeMessage(err) }, 'live: an event could not be handled');
      }
    }
  }

  /** The access changes heard: one query for their people's standings, then each of their streams. */
  private async applyAccess() {
    const batch = this.pending;
    this.pending = new Map();
    const standings = await standingsOf(this.options.database.db, [...batch.keys()]);
    for (const [user, notices] of batch) {
      const standing = standings.get(user) ?? new Map();
      const changes = new Map(notices.map((n) => [`${n.organization}:${n.project ?? ''}`, n]));
      for (const entry of this.byUser.of(user)) {
        if (!this.restand(entry, standing) || !entry.policy.access) continue;
        const opened = await entry.opened;
        for (const n of changes.values()) {
          if (committedBefore(n.xid, opened)) continue; // older than the stream: its standing at opening counts it
          const there = standing.get(n.organization);
          entry.policy.access({
            organization: n.organization,
            project: n.project,
            role: there?.role ?? null,
            permission: n.project ? (there?.projects.get(n.project) ?? null) : null,
          });
        }
      }
    }
  }
}

/**
 * The re-check of open streams, every STREAM_CHECK_SECONDS in every process that serves
 * streams: a job of the registry (jobs/registry.ts), due while a stream is open.
 */
export function liveStreamCheck(hub: LiveHub): JobSpec {
  return { name: 'live-stream-check', everySeconds: STREAM_CHECK_SECONDS, due: () => hub.openStreams > 0, run: () => hub.recheck() };
}
