/**
 * Recovery of runs a stopped process left open (on a shared store: runs of instances
 * whose lease ran out, each taken by one instance). A run whose terminal event was
 * written but whose end was not gets its end record; any other ends with `error`
 * "interrupted by restart", appended after its last event.
 */
import { isoNow, type Clock } from '../util/index.js';
import { runText, type EncodedEvent } from './encoded.js';
import { endRecordOf } from './end-record.js';
import { FrameBatch } from './frames.js';
import type { ChatStore, RunLocation } from './store.js';
import { isTerminal } from './types.js';

/** The message of the `error` that closes an interrupted run. */
export const INTERRUPTED = 'interrupted by restart';

/**
 * Closes every open run of `store`; returns how many were interrupted (runs that had
 * their terminal event already are only given their end record). `closed` hears each
 * run closed either way, after its end is durable.
 */
export async function recoverOpenRuns(store: ChatStore, clock: Clock, closed?: (where: RunLocation) => void): Promise<number> {
  let recovered = 0;
  for (const where of await store.openRuns()) {
    const events = await store.events(where.runId, 0);
    const last = events.at(-1);
    const text = runText(events);
    if (last && isTerminal(last)) {
      await store.endRun(where, endRecordOf(where.runId, last, text));
      closed?.(where);
      continue;
    }
    const interrupted: EncodedEvent = {
      seq: (last?.seq ?? 0) + 1,
      type: 'error',
      json: JSON.stringify({ type: 'error', content: { message: INTERRUPTED }, timestamp: isoNow(clock) }),
    };
    const writer = store.eventWriter(where);
    await writer.write([FrameBatch.of([interrupted])]);
    await store.endRun(where, endRecordOf(where.runId, interrupted, text));
    closed?.(where);
    recovered++;
  }
  return recovered;
}
