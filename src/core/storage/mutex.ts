/**
 * A keyed async mutex: work queued under the same key runs one at a time, in order.
 * Used to serialize read-modify-write cycles per state file.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every task queued earlier under `key` has settled. */
  run<T>(key: string, task: () => Promise<T> | T): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    const forget = () => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    tail.then(forget, forget);
    return next;
  }

  /** Resolves when every queued task has settled (used on shutdown). */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}
