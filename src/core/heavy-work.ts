// The process's budget of heavy work in flight (issue 21; docs/decisions.md, "Answers are
// written as they are read"): the bytes that list answers of large records and row
// verifications may hold at once, HEAVY_WORK_BYTES. Each such request reserves the most it
// can hold (a read's worst case: records per read × the largest a record can be) before
// it reads anything; a verification gives it back when its answer is written or abandoned,
// an answer written read by read holds one read's reservation at a time (AnswerHold). Past
// the budget a request is answered 503 with Retry-After in the API's own body, before any
// byte of the answer, so a crowd of large answers slows down its own requests instead of
// taking the process down.
import type { FastifyReply } from 'fastify';
import { ApiError } from './errors.js';

/** The 503 of a process whose heavy-work budget is spent: retry in a second. */
export const busy = () => new ApiError(503, {
  detail: 'The server is answering too many large requests at once; try again in 1 second.',
}, { 'retry-after': '1' });

/** Gives a reservation back (safe to call more than once); `shrink` gives back all but `bytes` of it. */
export interface Release {
  (): void;
  shrink(bytes: number): void;
}

const nothing: Release = Object.assign(() => {}, { shrink: () => {} });

interface Waiter {
  bytes: number;
  admit: (release: Release) => void;
  refuse: () => void;
}

export class WorkBudget {
  private used = 0;
  private readonly queue: Waiter[] = [];

  /**
   * `limit`: the bytes in flight at once; `waitMs`: how long a request whose reservation
   * does not fit waits for others to finish before it is answered 503 (a burst of ordinary
   * pages, each done in milliseconds, queues instead of failing; a crowd of large answers
   * is still turned away, and a waiting request holds none of the budget).
   */
  constructor(readonly limit: number, readonly waitMs = 0) {}

  /** The bytes reserved now (for metrics and tests). */
  get inFlight(): number {
    return this.used;
  }

  /** Requests waiting for room (for metrics and tests). */
  get waiting(): number {
    return this.queue.length;
  }

  private fits(bytes: number): boolean {
    // A reservation larger than the whole budget is granted only to an idle process.
    return this.used === 0 || this.used + bytes <= this.limit;
  }

  private grant(bytes: number): Release {
    this.used += bytes;
    let held = bytes;
    const release = () => {
      if (!held) return;
      this.used -= held;
      held = 0;
      this.admitWaiting();
    };
    release.shrink = (to: number) => {
      if (to >= held) return;
      this.used -= held - Math.max(0, to);
      held = Math.max(0, to);
      this.admitWaiting();
    };
    return release;
  }

  /** Admits the waiting requests that fit now, first come first served. */
  private admitWaiting() {
    while (this.queue.length > 0 && this.fits(this.queue[0].bytes)) {
      const next = this.queue.shift()!;
      next.admit(this.grant(next.bytes));
    }
  }

  /**
   * Reserves `bytes`, waiting up to `waitMs` (in arrival order) for room; rejects with the
   * 503 past that, or at once when `signal` aborts (the client left). `patient`: waits as
   * long as it takes (an answer already begun, which a 503 can no longer replace; it holds
   * nothing while it waits, so no one waits on it).
   */
  async reserve(bytes: number, signal?: AbortSignal, patient = false): Promise<Release> {
    if (bytes <= 0) return nothing;
    if (this.queue.length === 0 && this.fits(bytes)) return this.grant(bytes);
    if (!patient && this.waitMs <= 0) throw busy();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        admit: (release) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', waiter.refuse);
          resolve(release);
        },
        refuse: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', waiter.refuse);
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          // The head may have been the one that did not fit: those behind it may fit now.
          this.admitWaiting();
          reject(busy());
        },
      };
      const timer = patient ? undefined : setTimeout(waiter.refuse, this.waitMs);
      signal?.addEventListener('abort', waiter.refuse, { once: true });
      this.queue.push(waiter);
    });
  }

  /**
   * Reserves `bytes` (waiting as `reserve` does) until the answer of `reply` is written or
   * its connection closes.
   */
  async takeFor(reply: FastifyReply, bytes: number): Promise<void> {
    const ac = new AbortController();
    const leave = () => ac.abort();
    reply.raw.once('close', leave);
    let release: () => void;
    try {
      release = await this.reserve(bytes, ac.signal);
    } finally {
      reply.raw.off('close', leave);
    }
    if (reply.raw.destroyed || reply.raw.writableFinished) {
      release();
      return;
    }
    reply.raw.once('close', release);
    reply.raw.once('finish', release);
  }
}

/**
 * What one answer written read by read holds of the budget: one read's reservation at a
 * time, taken before the read and given back once the read's text has left the process,
 * so that between two reads of a long answer other requests get their turn (a grid page of
 * 100 rows is 10 reads; held whole, it kept a second page waiting for all of them). Whatever
 * it holds is given back when the answer is written or its connection closes.
 */
export class AnswerHold {
  private held: Release = nothing;
  private readonly left = new AbortController();

  constructor(private readonly budget: WorkBudget, reply: FastifyReply) {
    const end = () => {
      this.left.abort();
      this.giveBack();
    };
    if (reply.raw.destroyed || reply.raw.writableFinished) this.left.abort();
    reply.raw.once('close', end);
    reply.raw.once('finish', end);
  }

  /**
   * Gives back what is held and reserves `bytes` for the next read: the first read waits
   * as `reserve` does (503 past HEAVY_WORK_WAIT_MS), a later one (`patient`) as long as it takes.
   * Rejects with the 503 when the client has left.
   */
  async take(bytes: number, patient = false): Promise<void> {
    this.giveBack();
    if (this.left.signal.aborted) throw busy();
    const release = await this.budget.reserve(bytes, this.left.signal, patient);
    // The connection may have closed as the reservation was granted.
    if (this.left.signal.aborted) {
      release();
      throw busy();
    }
    this.held = release;
  }

  /**
   * Keeps only `bytes` of what is held: a read's records written into text, what the answer
   * still holds while its client takes it is that text, not the read's worst case.
   */
  keepOnly(bytes: number): void {
    this.held.shrink(bytes);
  }

  /** Gives back what is held (safe to call more than once). */
  giveBack(): void {
    const release = this.held;
    this.held = nothing;
    release();
  }
}

// Heavy work takes turns with everything else (issue 21: another organization's PATCH p99
// was 5 s while a crowd of large answers ran). A large record's serialization or a
// version's hash is milliseconds of CPU; when several heavy answers each did theirs as soon
// as their socket drained, one turn of the event loop could hold several of them, and a
// small request, which needs a dozen turns (its queries, its transaction), waited behind
// every one of them. So a heavy step waits for its turn: one step of all the process's heavy
// work per turn of the event loop (the check phase, after the I/O the turn brought in), the
// rest of each turn left to whatever else is ready.
const waiting: (() => void)[] = [];
let scheduled = false;

function nextTurn() {
  waiting.shift()?.();
  scheduled = waiting.length > 0;
  if (scheduled) setImmediate(nextTurn);
}

/** Resolves when this heavy step may run: at most one such step a turn of the event loop, in the order asked. */
export function heavyTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(nextTurn);
    }
  });
}
