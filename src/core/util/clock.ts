/** Injected time and id sources, so tests can pin them. */
import { randomUUID } from 'node:crypto';

/** A source of the current time. */
export interface Clock {
  now(): Date;
}

/** The real clock; `AppDeps.clock` replaces it in tests. */
export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds and `Z` (API.md §2). */
export function isoNow(clock: Clock = systemClock): string {
  return clock.now().toISOString();
}

/** A UUID v4 generator. */
export type IdGenerator = () => string;

/** The default UUID v4 generator. */
export const uuid: IdGenerator = () => randomUUID();
