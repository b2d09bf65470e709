import { mkdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isOrgError } from '../errors.js';
import type { SkillChangeEvent } from './events.js';
import { whileLoading } from './opening.js';
import { createSkillStore, type SkillStore } from './store.js';
import { tempHome, writeSkillFile, type TempHome } from '../../../test/helpers/skills.js';

let home: TempHome;
beforeEach(async () => {
  home = await tempHome();
  await mkdir(home.root, { recursive: true });
  await writeSkillFile(home.root, 'chase-invoices', 'Chase late invoices');
});
afterEach(() => home.cleanup());

/** A store whose load finishes when the test says so. */
function deferred(): { store: SkillStore; finish(): Promise<void>; fail(error: Error): void } {
  let resolve!: (store: SkillStore) => void;
  let reject!: (error: Error) => void;
  const creating = new Promise<SkillStore>((ok, ko) => {
    resolve = ok;
    reject = ko;
  });
  return {
    store: whileLoading(creating),
    async finish() {
      resolve(await createSkillStore({ root: home.root, stateDir: home.stateDir, synonyms: false }));
    },
    fail: (error) => reject(error),
  };
}

describe('a skill store that answers while its library loads', () => {
  it('says it is loading instead of answering empty; waiting calls answer once loaded', async () => {
    const { store, finish } = deferred();
    expect(store.isReady()).toBe(false);
    expect(store.count()).toBe(0);
    for (const call of [() => store.search('late invoices'), () => store.list(), () => store.problems(), () => store.loadReport]) {
      let thrown: unknown;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      expect(isOrgError(thrown) && thrown.code === 'unavailable' && thrown.status === 503).toBe(true);
    }
    const events: SkillChangeEvent[] = [];
    store.subscribe((event) => events.push(event));
    const removed: SkillChangeEvent[] = [];
    store.subscribe((event) => removed.push(event))();
    const reading = store.get('chase-invoices');
    const writing = store.upsert({ slug: 'weekly-report', frontmatter: { type: 'skill', name: 'Weekly report', status: 'complete', summary: 'The weekly report.' }, body: '## [a] Step 1: Write\n\nWrite it.\n' });

    await finish();
    await store.ready();
    expect(store.isReady()).toBe(true);
    expect((await reading)?.frontmatter.name).toBe('Chase late invoices');
    expect((await writing).created).toBe(true);
    // The listener subscribed while loading hears the write; the one removed meanwhile does not.
    expect(events).toEqual([expect.objectContaining({ type: 'upsert', slug: 'weekly-report', created: true })]);
    expect(removed).toEqual([]);
    expect(store.count()).toBe(2);
    expect(store.search('late invoices')[0]?.slug).toBe('chase-invoices');
    await store.close();
  });

  it('a library that cannot load rejects ready() and every waiting call; close still resolves', async () => {
    const { store, fail } = deferred();
    const reading = store.get('chase-invoices');
    fail(new Error('EACCES: permission denied, scandir skills'));
    await expect(store.ready()).rejects.toThrow('EACCES');
    await expect(reading).rejects.toThrow('EACCES');
    expect(store.isReady()).toBe(false);
    await store.close();
  });
});
