/**
 * What the contract suites share: a store under test with its reopen and cleanup, and the
 * `fresh()` helper that opens one per test and cleans every one up after it.
 */
import { afterEach } from 'vitest';

/** A store under test, the same backend opened again, and its cleanup. */
export interface Fixture<S> {
  store: S;
  reopen(): Promise<S>;
  cleanup(): Promise<void>;
}

/** Call inside a `describe`: returns `fresh()`, which opens a fixture that is cleaned up after the test. */
export function fixtures<F extends { cleanup(): Promise<void> }>(make: () => Promise<F>): () => Promise<F> {
  const open: F[] = [];
  afterEach(async () => {
    for (const fixture of open.splice(0)) await fixture.cleanup();
  });
  return async () => {
    const fixture = await make();
    open.push(fixture);
    return fixture;
  };
}
