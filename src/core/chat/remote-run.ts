/**
 * A run executing on another instance, followed through the shared store: a `Run` fed
 * with the stored events after its last one whenever the store says the run may have
 * new events. Reads are one at a time and a wake-up that arrives during a read causes
 * one more read, so a burst of wake-ups costs at most two queries and no event is
 * published twice or skipped (each read starts after the last published sequence number).
 */
import { Run } from './run.js';
import type { ChatCluster, ChatStore, RunLocation } from './store.js';

/** Starts following `where`; resolves once the events stored so far are published. */
export async function followRemoteRun(store: ChatStore, cluster: ChatCluster, where: RunLocation, onError: (error: unknown) => void): Promise<Run> {
  const run = new Run(where);
  let reading: Promise<void> | undefined;
  let again = false;
  const read = async (): Promise<void> => {
    do {
      again = false;
      const events = await store.events(where.runId, run.lastSeq);
      if (events.length > 0 && !run.finished) run.publish(events);
    } while (again && !run.finished);
  };
  const pull = (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  // Watch before the first read: an event stored in between wakes a second read.
  const unwatch = cluster.watchRun(where.runId, () => {
    pull().catch(onError);
  });
  run.done.then(unwatch, unwatch);
  try {
    await pull();
  } catch (error) {
    unwatch();
    throw error;
  }
  return run;
}
