// Open streams grouped by what they listen to (a recipient, a table): an event heard on a
// channel goes to the streams of its key only, not past every open stream.
export class Fanout<S> {
  private readonly byKey = new Map<string, Set<S>>();

  /** Adds `subscriber` under `key`; returns the function that removes it. */
  add(key: string, subscriber: S): () => void {
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(subscriber);
    return () => {
      set!.delete(subscriber);
      if (!set!.size && this.byKey.get(key) === set) this.byKey.delete(key);
    };
  }

  /** The subscribers under `key` (a copy: one may leave while the others are served). */
  of(key: string): S[] {
    return [...(this.byKey.get(key) ?? [])];
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  keys(): string[] {
    return [...this.byKey.keys()];
  }

  all(): S[] {
    return [...this.byKey.values()].flatMap((set) => [...set]);
  }
}
