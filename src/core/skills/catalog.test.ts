import { describe, expect, it } from 'vitest';
import { Catalog } from './catalog.js';
import { createScopedIndex, loadScopedIndex, toSearchDocument } from './search/index.js';
import type { Skill } from './types.js';

const skill = (slug: string, name: string, over: Partial<Skill['frontmatter']> = {}): Skill => ({
  slug,
  frontmatter: { type: 'skill', name, category: 'ops', difficulty: 'low', tags: [], status: 'complete', summary: '', learned_by: 'system', learned_at: '2025-01-01T00:00:00.000Z', tool_url: null, ...over },
  body: '',
  steps: [],
});

describe('the catalog', () => {
  it('keeps skills, their signatures and their index documents in step by id', () => {
    const catalog = new Catalog(createScopedIndex());
    catalog.put(skill('alpha', 'Alpha zebras'), { mtimeMs: 1000, size: 10 });
    catalog.put(skill('beta', 'Beta zebras', { status: 'draft' }), { mtimeMs: 2000, size: 20 });
    expect(catalog.count).toBe(2);
    expect(catalog.entry('alpha')).toMatchObject({ slug: 'alpha', name: 'Alpha zebras', status: 'complete' });
    expect(catalog.isCurrent('alpha', { mtimeMs: 1000, size: 10 })).toBe(true);
    expect(catalog.isCurrent('alpha', { mtimeMs: 1001, size: 10 })).toBe(false);
    expect(catalog.list().map((e) => e.slug)).toEqual(['alpha', 'beta']);
    expect(catalog.index.search('zebras').map((m) => m.slug)).toEqual(['alpha']);

    catalog.put(skill('alpha', 'Alpha otters'), { mtimeMs: 3000, size: 12 });
    expect(catalog.index.search('zebras')).toEqual([]);
    expect(catalog.index.search('otters').map((m) => m.slug)).toEqual(['alpha']);
    expect(catalog.signatureOf('alpha')).toEqual({ mtimeMs: 3000, size: 12 });

    expect(catalog.drop('alpha')).toBe(true);
    expect(catalog.drop('alpha')).toBe(false);
    expect(catalog.index.search('otters')).toEqual([]);
    expect(catalog.keys()).toEqual(['beta']);
  });

  it('turns a skill whose file no longer parses into a problem, and back', () => {
    const catalog = new Catalog(createScopedIndex());
    catalog.put(skill('crane', 'Crane care'), { mtimeMs: 1, size: 1 });
    catalog.putProblem('crane.md', 'front matter is not valid YAML', { mtimeMs: 2, size: 2 }, 3);
    expect(catalog.count).toBe(0);
    expect(catalog.index.search('crane')).toEqual([]);
    expect([...catalog.problems.values()]).toEqual([{ file: 'crane.md', message: 'front matter is not valid YAML', line: 3, mtimeMs: 2, size: 2 }]);
    // The broken version is current: the watcher's next event for it changes nothing.
    expect(catalog.isCurrent('crane', { mtimeMs: 2, size: 2 })).toBe(true);
    catalog.put(skill('crane', 'Crane care fixed'), { mtimeMs: 3, size: 3 });
    expect(catalog.problems.size).toBe(0);
    expect(catalog.index.search('crane').map((m) => m.slug)).toEqual(['crane']);
  });

  it('starts from a snapshot: the index restored and the signatures of its skills', async () => {
    const first = new Catalog(createScopedIndex());
    first.put(skill('alpha', 'Alpha zebras'), { mtimeMs: 1000, size: 10 });
    const again = new Catalog(await loadScopedIndex(first.index.toJSON()), new Map(first.fileSignatures()));
    expect(again.count).toBe(1);
    expect(again.entry('alpha')).toEqual(first.entry('alpha'));
    expect(again.list()).toEqual(first.list());
    expect(again.index.search('zebras').map((m) => m.slug)).toEqual(['alpha']);
    again.put(skill('gamma', 'Gamma zebras'), { mtimeMs: 1, size: 1 });
    expect(again.index.search('zebras').map((m) => m.slug).sort()).toEqual(['alpha', 'gamma']);
    expect(toSearchDocument(skill('x', 'X'), 'custom-id').id).toBe('custom-id');
  });
});
