import { describe, expect, it } from 'vitest';
import { fileKey, isStructureShapedSlug, keyOf, keyString, parseKey, relativeFile, slugOfKey, structureOfKey } from './skill-key.js';
import { Shadows, isVisible, shadowedBy } from './visibility.js';

const S1 = '0b6f1a52-0000-4000-8000-000000000001';
const S2 = '0b6f1a52-0000-4000-8000-000000000002';

describe('skill keys', () => {
  it('map a skill to its file and back: instance skills in the root, a structure’s in its folder', () => {
    expect(keyString({ slug: 'chase' })).toBe('chase');
    expect(keyString({ slug: 'chase', structureId: S1 })).toBe(`${S1}/chase`);
    expect(parseKey(`${S1}/chase`)).toEqual({ slug: 'chase', structureId: S1 });
    expect(parseKey('chase')).toEqual({ slug: 'chase' });
    expect([slugOfKey(keyOf('chase', S1)), structureOfKey(keyOf('chase', S1)), structureOfKey('chase')]).toEqual(['chase', S1, undefined]);
    expect(relativeFile({ slug: 'chase', structureId: S1 })).toBe(`${S1}/chase.md`);
    expect(fileKey('chase.md')).toEqual({ kind: 'skill', key: { slug: 'chase' } });
    expect(fileKey(`${S1}/chase.md`)).toEqual({ kind: 'skill', key: { slug: 'chase', structureId: S1 } });
    expect(fileKey(`${S1}/Bad_Name.md`)).toEqual({ kind: 'bad-name', structureId: S1 });
    // A skill's own files, deleted areas, hidden and temp files, other folders: not skills.
    for (const path of ['chase/readme.md', `${S1}/chase/notes.md`, '.deleted/chase--x.md', `${S1}/.hidden.md`, 'not-a-structure/x.md', 'chase.md.12', `${S1}/~tmp.md`]) {
      expect(fileKey(path)).toEqual({ kind: 'other' });
    }
    expect(isStructureShapedSlug(S1)).toBe(true);
    expect(isStructureShapedSlug('chase')).toBe(false);
  });
});

describe('what a structure sees', () => {
  it('its own skills and the instance skills it has not replaced, by slug or by a fork’s forked_from; never another structure’s', () => {
    const shadows = new Shadows();
    const own = { slug: 'chase', structure_id: S1 };
    const renamedFork = { slug: 'our-way', structure_id: S1, forked_from: 'greet' };
    shadows.add(own);
    shadows.add(renamedFork);
    expect(shadowedBy(renamedFork)).toEqual(['our-way', 'greet']);
    const hidden = shadows.hiddenFor(S1);
    expect(isVisible({ slug: 'chase' }, S1, hidden)).toBe(false);
    expect(isVisible({ slug: 'greet' }, S1, hidden)).toBe(false);
    expect(isVisible({ slug: 'other' }, S1, hidden)).toBe(true);
    expect(isVisible(own, S1, hidden)).toBe(true);
    expect(isVisible(own, S2, shadows.hiddenFor(S2))).toBe(false);
    expect(isVisible({ slug: 'chase' }, S2, shadows.hiddenFor(S2))).toBe(true);
    expect(isVisible(own, undefined)).toBe(false);
    expect(isVisible({ slug: 'chase' }, undefined)).toBe(true);
    // Counted: a slug stays hidden while one of its replacements is live.
    shadows.add({ slug: 'greet', structure_id: S1 });
    shadows.remove(renamedFork);
    expect(hidden.has('greet')).toBe(true);
    shadows.remove({ slug: 'greet', structure_id: S1 });
    expect(hidden.has('greet')).toBe(false);
  });
});
