/**
 * The parse worker of the parallel skill library load, as `org serve` starts it: the
 * bundle's `parse-worker.js` entry, beside the chunks that start it by URL. Started as a
 * worker thread, it parses a slice of skill files and answers with what the main thread's
 * parse gives.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSlice, type ParsedSlice } from '../src/core/skills/parsed-file.js';
import { DIST_BUNDLE, ensureBuilt } from './helpers/child.js';
import { skillText, tempHome, type TempHome } from './helpers/skills.js';

let home: TempHome;
beforeAll(async () => {
  ensureBuilt();
  home = await tempHome('org-bundle-worker-');
  await mkdir(home.root, { recursive: true });
  await writeFile(join(home.root, 'chase-invoices.md'), skillText(['type: skill', 'name: Chase invoices', 'status: complete', 'tags: [finance]'], '# Chase\n\nWhen invoices are late.\n'));
  await writeFile(join(home.root, 'broken.md'), 'no front matter\n');
}, 120_000);
afterAll(() => home.cleanup());

describe('the bundled parse worker', () => {
  it('parses a slice of skill files as the main thread does', { timeout: 60_000 }, async () => {
    const worker = new Worker(join(DIST_BUNDLE, '..', 'parse-worker.js'));
    try {
      const answer = await new Promise<{ id: number; slice: ParsedSlice }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ id: 7, root: home.root, keys: ['chase-invoices', 'broken', 'gone'] });
      });
      expect(answer.id).toBe(7);
      expect(answer.slice.files.map((file) => file.kind)).toEqual(['skill', 'problem', 'missing']);
      expect(answer.slice).toEqual(parseSlice(home.root, ['chase-invoices', 'broken', 'gone']));
    } finally {
      await worker.terminate();
    }
  });
});
