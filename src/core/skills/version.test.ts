import { describe, expect, it } from 'vitest';
import { matchesVersion, parseIfMatch, skillETag } from './version.js';

const skill = { frontmatter: { type: 'skill', name: 'A' } as never, body: 'text' };

describe('skill versions', () => {
  it('tags equal records alike and any change differently', () => {
    expect(skillETag(skill)).toBe(skillETag({ ...skill }));
    expect(skillETag({ ...skill, body: 'text!' })).not.toBe(skillETag(skill));
    expect(skillETag(skill)).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
  });

  it('parses If-Match lists, dropping weak tags (strong comparison)', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(parseIfMatch(' * ')).toEqual(['*']);
    expect(parseIfMatch('"a", W/"b",  "c"')).toEqual(['"a"', '"c"']);
    expect(parseIfMatch('W/"b"')).toEqual([]);
  });

  it('matches the current version or * for an existing skill only', () => {
    const tag = skillETag(skill);
    expect(matchesVersion(skill, [tag])).toBe(true);
    expect(matchesVersion(skill, ['"other"', tag])).toBe(true);
    expect(matchesVersion(skill, ['"other"'])).toBe(false);
    expect(matchesVersion(skill, [])).toBe(false);
    expect(matchesVersion(skill, ['*'])).toBe(true);
    expect(matchesVersion(undefined, ['*'])).toBe(false);
  });
});
