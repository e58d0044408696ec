// The process's budget of heavy work in flight (issue 21; docs/decisions.md, "Answers are
// written as they are read"): the bytes that list answers of large records and row
// verifications may hold at once, HEAVY_WORK_BYTES. Each such request reserves the most it
// can hold (a read's worst case: records per read × the largest a record can be) before
// it reads anything, and gives it back when its answer is written or abandoned; past the
// budget it is answered 503 with Retry-After in the API's own body, before any byte of
// the answer, so a crowd of large answers slows down its own requests instead of taking
// the process down.
import type { FastifyReply } from 'fastify';
import { ApiError } from './errors.js';

/** The 503 of a process whose heavy-work budget is spent: retry in a second. */
export const busy = () => new ApiError(503, {
  detail: 'The server is answering too many large requests at once; try again in 1 second.',
}, { 'retry-after': '1' });

export class WorkBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** The bytes reserved now (for metrics and tests). */
  get inFlight(): number {
    return this.used;
  }

  /**
   * Reserves `bytes`, or throws the 503 when the budget cannot hold them (a reservation
   * larger than the whole budget is granted only to an idle process). Returns the
   * release, which is safe to call more than once.
   */
  take(bytes: number): () => void {
    if (bytes <= 0) return () => {};
    if (this.used > 0 && this.used + bytes > this.limit) throw busy();
    this.used += bytes;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.used -= bytes;
    };
  }

  /** Reserves `bytes` until the answer of `reply` is written or its connection closes. */
  takeFor(reply: FastifyReply, bytes: number): void {
    const release = this.take(bytes);
    reply.raw.once('close', release);
    reply.raw.once('finish', release);
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
