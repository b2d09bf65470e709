/**
 * A skill store that answers before its library is loaded, so that `org serve` can
 * listen at once whatever the size of the library: loading 10,000 skills takes seconds,
 * accepting connections should not wait for it.
 *
 * Writes, reads of one file and `settle` wait for the load. The synchronous reads
 * (`list`, `search`, `explain`, `problems`) have nothing to answer from yet and throw a 503
 * `unavailable` error instead of answering empty: callers that can wait (the server's
 * knowledge routes, the chat's skill lookup, MCP tools) await `ready()`
 * first. `count` and `uncommittedFiles` are 0 until loaded. Listeners added early are attached once loaded.
 */
import { OrgError } from '../errors.js';
import type { SkillChangeListener } from './events.js';
import type { SkillStore } from './store.js';

/** Wraps a store being created; every call either waits for it or says it is loading. */
export function whileLoading(creating: Promise<SkillStore>): SkillStore {
  let loaded: SkillStore | undefined;
  let failure: unknown;
  // Listeners subscribed before the load, attached to the store once it is there.
  const early = new Set<{ listener: SkillChangeListener; remove?: () => void }>();
  // Settles either way, so that nothing is left rejected and unobserved; ready() rethrows.
  const settled = creating.then(
    (store) => {
      loaded = store;
      for (const entry of early) entry.remove = store.subscribe(entry.listener);
    },
    (error: unknown) => {
      failure = error ?? new Error('the skill library failed to load');
    },
  );
  const ready = async (): Promise<SkillStore> => {
    await settled;
    if (!loaded) throw failure;
    return loaded;
  };
  const now = (): SkillStore => {
    if (loaded) return loaded;
    throw new OrgError('unavailable', 'the skill library is still loading; try again in a moment', { retryAfter: 1 });
  };
  return {
    get loadReport() {
      return now().loadReport;
    },
    ready: async () => {
      await ready();
    },
    isReady: () => loaded !== undefined,
    list: (filter) => now().list(filter),
    get: async (slug, structureId) => (await ready()).get(slug, structureId),
    structuresWith: (slug) => now().structuresWith(slug),
    upsert: async (input) => (await ready()).upsert(input),
    fork: async (input) => (await ready()).fork(input),
    files: async (slug, structureId) => (await ready()).files(slug, structureId),
    putFiles: async (slug, files, scope) => (await ready()).putFiles(slug, files, scope),
    remove: async (slug, scope) => (await ready()).remove(slug, scope),
    listDeleted: async (structureId) => (await ready()).listDeleted(structureId),
    restore: async (slug, scope) => (await ready()).restore(slug, scope),
    problems: (scope) => now().problems(scope),
    search: (query, request) => now().search(query, request),
    explain: (query, request) => now().explain(query, request),
    gaps: async (query) => (await ready()).gaps(query),
    count: () => loaded?.count() ?? 0,
    uncommittedFiles: () => loaded?.uncommittedFiles() ?? 0,
    subscribe(listener) {
      if (loaded) return loaded.subscribe(listener);
      const entry: { listener: SkillChangeListener; remove?: () => void } = { listener };
      early.add(entry);
      return () => {
        early.delete(entry);
        entry.remove?.();
      };
    },
    settle: async (options) => (await ready()).settle(options),
    pull: async () => (await ready()).pull(),
    async close() {
      await settled;
      await loaded?.close();
    },
  };
}
