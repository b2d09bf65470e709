import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalog } from './catalog.js';
import { createScopedIndex } from './search/index.js';
import { createSweeper, sweepList } from './sweep.js';
import type { FileChange } from './sync.js';
import type { Skill } from './types.js';

const STRUCTURE = '3f2a9c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b';
const skill = (slug: string): Skill => ({
  slug,
  frontmatter: { type: 'skill', name: slug, category: 'ops', difficulty: 'low', tags: [], status: 'complete', summary: '', learned_by: 'system', learned_at: '2025-01-01T00:00:00.000Z', tool_url: null },
  body: '',
  steps: [],
});

let root: string;
let outside: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'org-sweep-'));
  outside = await mkdtemp(join(tmpdir(), 'org-sweep-outside-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('sweeps of the skills folder', () => {
  it('names every file of the root and of structure folders, and every file the catalog holds, never entering links or other folders', async () => {
    await writeFile(join(root, 'unreported.md'), 'x');
    await mkdir(join(root, STRUCTURE));
    await writeFile(join(root, STRUCTURE, 'own.md'), 'x');
    await mkdir(join(root, '.deleted'));
    await writeFile(join(root, '.deleted', 'old.md'), 'x');
    await mkdir(join(root, 'not-a-structure'));
    await writeFile(join(root, 'not-a-structure', 'inner.md'), 'x');
    await writeFile(join(outside, 'planted.md'), 'x');
    await symlink(outside, join(root, '7c9e6679-7425-40de-944b-e07fc1f90ae7'));
    const catalog = new Catalog(createScopedIndex());
    catalog.put(skill('went-away'), { mtimeMs: 1, size: 1 });
    catalog.putProblem(`${STRUCTURE}/broken.md`, 'no front matter', { mtimeMs: 1, size: 1 });

    expect(sweepList(root, catalog).sort()).toEqual(
      // The link to a folder is named as itself (no skill file: the sync skips it); nothing behind it is.
      [`${STRUCTURE}/broken.md`, `${STRUCTURE}/own.md`, '7c9e6679-7425-40de-944b-e07fc1f90ae7', 'unreported.md', 'went-away.md'].sort(),
    );
  });

  it('sweeps once for many bursts, at once when asked, and never after it is cancelled', async () => {
    await writeFile(join(root, 'a.md'), 'x');
    const applied: (readonly FileChange[])[] = [];
    const sweeper = createSweeper(root, new Catalog(createScopedIndex()), 60_000, (changes) => applied.push(changes), (error) => {
      throw error;
    });
    sweeper.now();
    expect(applied).toEqual([]);
    sweeper.soon();
    sweeper.soon();
    sweeper.now();
    expect(applied).toEqual([['a.md']]);
    sweeper.soon();
    sweeper.cancel();
    sweeper.now();
    expect(applied).toHaveLength(1);
  });
});
