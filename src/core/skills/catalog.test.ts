import { describe, expect, it } from 'vitest';
import { Catalog } from './catalog.js';
import { createSkillSearchIndex } from './search/engine.js';
import type { SkillListEntry } from './types.js';

const entry = (slug: string): SkillListEntry => ({
  slug,
  name: slug,
  category: 'ops',
  difficulty: 'low',
  tags: [],
  summary: '',
  status: 'complete',
  learned_by: 'system',
  learned_at: '2025-01-01T00:00:00.000Z',
  tool_url: null,
});

describe('a catalog started from a persisted manifest', () => {
  it('answers signatures, keys and counts without parsing the entries, and parses them once when a record is needed', () => {
    let parsed = 0;
    const catalog = new Catalog(createSkillSearchIndex());
    catalog.adopt({
      keys: ['alpha', 'beta'],
      mtimes: Float64Array.from([1000, 2000]),
      sizes: Float64Array.from([10, 20]),
      entries: () => {
        parsed++;
        return JSON.stringify([entry('alpha'), entry('beta')]);
      },
    });
    expect(catalog.signatureOf('beta')).toEqual({ mtimeMs: 2000, size: 20 });
    expect(catalog.signatureOf('gamma')).toBeUndefined();
    expect(catalog.keys()).toEqual(['alpha', 'beta']);
    expect(catalog.count).toBe(2);
    expect(catalog.isCurrent('alpha', { mtimeMs: 1000, size: 10 })).toBe(true);
    // A bad file name that was never a skill: dropping it does not need the records.
    expect(catalog.drop('not-held')).toBe(false);
    expect(parsed).toBe(0);

    expect(catalog.records.get('beta')).toEqual({ entry: entry('beta'), mtimeMs: 2000, size: 20 });
    expect(catalog.records.size).toBe(2);
    expect(catalog.drop('alpha')).toBe(true);
    expect(catalog.keys()).toEqual(['beta']);
    expect(parsed).toBe(1);
  });

  it('refuses a manifest whose columns do not match its keys', () => {
    const catalog = new Catalog(createSkillSearchIndex());
    expect(() => catalog.adopt({ keys: ['a', 'b'], mtimes: new Float64Array(1), sizes: new Float64Array(2), entries: () => '[]' })).toThrow(TypeError);
    expect(() => catalog.adopt({ keys: ['a', 'a'], mtimes: new Float64Array(2), sizes: new Float64Array(2), entries: () => '[]' })).toThrow(TypeError);
  });
});
