// How far each running import is, in this process's memory, by user and Idempotency-Key
// (docs/eln.md, "Imports": an import's writes are one transaction, invisible to other
// connections until its commit, so its progress cannot live in the database).
const KEEP_MS = 10 * 60 * 1000;

export interface Progress {
  phase: 'checking' | 'writing' | 'done';
  rows_done: number;
  rows_total: number | null;
}

export class ProgressBoard {
  private readonly entries = new Map<string, Progress & { at: number }>();

  set(userSid: string, key: string, progress: Progress): void {
    this.entries.set(`${userSid}\n${key}`, { ...progress, at: Date.now() });
  }

  /** The import ended: kept as done (with its last counts) for a while. */
  finish(userSid: string, key: string): void {
    const entry = this.entries.get(`${userSid}\n${key}`);
    if (entry) this.set(userSid, key, { phase: 'done', rows_done: entry.rows_done, rows_total: entry.rows_total ?? entry.rows_done });
    this.sweep();
  }

  get(userSid: string, key: string): Progress | undefined {
    const entry = this.entries.get(`${userSid}\n${key}`);
    if (!entry || Date.now() - entry.at > KEEP_MS) return undefined;
    const { at: _at, ...progress } = entry;
    return progress;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, v] of this.entries) if (now - v.at > KEEP_MS) this.entries.delete(k);
  }
}
