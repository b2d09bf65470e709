/**
 * When failed deliveries are tried again: after 5 s, 1 min, 5 min, 30 min, 1 h, 2 h, 4 h,
 * 8 h and 8 h, so the last attempt comes about 24 hours after the first; then the
 * delivery is given up (status `failed`). Tests inject a schedule of their own.
 */

/** Delays in ms before each retry (the first attempt is immediate). */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5_000, 60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000];

/** When to try again after `failures` failed attempts, or undefined when the schedule is over. */
export function nextAttemptAt(schedule: readonly number[], failures: number, now: Date): Date | undefined {
  const delay = schedule[failures - 1];
  return delay === undefined ? undefined : new Date(now.getTime() + delay);
}
