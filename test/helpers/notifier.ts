/**
 * Waiting on state that test doubles change: the double calls `notify()` whenever it
 * changes something a test may wait for, and `until(predicate)` resolves at the first
 * notification after which the predicate holds. Nothing polls a clock; `failAfterMs`
 * only bounds a failure so that it says what was awaited.
 *
 * @example
 * const changes = notifier();
 * server.on('request', () => { received++; changes.notify(); });
 * await changes.until(() => received === 1, 'the first request');
 */

/** See the module comment. */
export interface Notifier {
  /** Re-checks every waiter; call after each change of the watched state. */
  notify(): void;
  /** Resolves once `predicate` holds (at once when it already does). */
  until(predicate: () => boolean, what: string, failAfterMs?: number): Promise<void>;
}

/** Creates a {@link Notifier}. */
export function notifier(): Notifier {
  const waiters = new Set<() => void>();
  return {
    notify() {
      for (const waiter of [...waiters]) waiter();
    },
    until(predicate, what, failAfterMs = 20_000) {
      if (predicate()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`${what} did not happen`));
        }, failAfterMs);
        const waiter = () => {
          let held: boolean;
          try {
            held = predicate();
          } catch (error) {
            waiters.delete(waiter);
            clearTimeout(timer);
            reject(error as Error);
            return;
          }
          if (!held) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          resolve();
        };
        waiters.add(waiter);
      });
    },
  };
}
