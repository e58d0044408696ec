// The bound on the live streams one credential holds open (LIVE_STREAMS_PER_CREDENTIAL),
// counted over every process of one server: in a cluster the primary keeps the count (a
// worker takes a slot before it opens a stream and frees it when the stream closes; the
// slots of a worker that dies go with it); a server of one process counts for itself.
// Several servers on one database each count their own (docs/decisions.md, "Live streams").
import cluster from 'node:cluster';
import { errors } from '../errors.js';

const TAKE = 'records:streams:take';
const TAKEN = 'records:streams:taken';
const FREE = 'records:streams:free';
/** A worker whose primary does not answer within this long refuses the stream (503). */
const ANSWER_MS = 5_000;

export interface StreamSlots {
  /** Takes one of `credentialSid`'s slots: false when it holds `bound` already. */
  take(credentialSid: string): Promise<boolean>;
  free(credentialSid: string): void;
}

/** Open streams per credential. */
class Counts {
  private readonly held = new Map<string, number>();

  take(credentialSid: string, bound: number): boolean {
    const held = this.held.get(credentialSid) ?? 0;
    if (held >= bound) return false;
    this.held.set(credentialSid, held + 1);
    return true;
  }

  free(credentialSid: string, count = 1): void {
    const held = (this.held.get(credentialSid) ?? 0) - count;
    if (held > 0) this.held.set(credentialSid, held);
    else this.held.delete(credentialSid);
  }

  entries(): Array<[string, number]> {
    return [...this.held];
  }
}

/** The slots of this server: the primary's count in a cluster worker, else this process's own. */
export function streamSlots(bound: number): StreamSlots {
  if (!cluster.isWorker) {
    const counts = new Counts();
    return { take: async (credentialSid) => counts.take(credentialSid, bound), free: (credentialSid) => counts.free(credentialSid) };
  }
  const waiting = new Map<string, (ok: boolean) => void>();
  let next = 0;
  process.on('message', (message: { type?: string; id?: string; ok?: boolean }) => {
    if (message?.type !== TAKEN || !message.id) return;
    waiting.get(message.id)?.(message.ok === true);
    waiting.delete(message.id);
  });
  return {
    take: (credentialSid) => new Promise<boolean>((resolve, reject) => {
      const id = `${process.pid}-${(next += 1)}`;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(errors.unavailable());
      }, ANSWER_MS);
      waiting.set(id, (ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
      process.send!({ type: TAKE, id, credential: credentialSid, bound });
    }),
    free: (credentialSid) => {
      process.send?.({ type: FREE, credential: credentialSid });
    },
  };
}

/** In the primary of a cluster: keeps every worker's slots. Call once, before forking. */
export function serveClusterStreamSlots(): void {
  const total = new Counts();
  const byWorker = new Map<number, Counts>();
  cluster.on('message', (worker, message: { type?: string; id?: string; credential?: string; bound?: number }) => {
    if (typeof message?.credential !== 'string') return;
    let mine = byWorker.get(worker.id);
    if (!mine) byWorker.set(worker.id, (mine = new Counts()));
    if (message.type === TAKE) {
      const ok = total.take(message.credential, message.bound ?? 1);
      if (ok) mine.take(message.credential, Infinity);
      worker.send({ type: TAKEN, id: message.id, ok });
    } else if (message.type === FREE) {
      total.free(message.credential);
      mine.free(message.credential);
    }
  });
  cluster.on('exit', (worker) => {
    for (const [credential, count] of byWorker.get(worker.id)?.entries() ?? []) total.free(credential, count);
    byWorker.delete(worker.id);
  });
}
