import matter from 'gray-matter';
import { describe, expect, it } from 'vitest';
import { lineOfMember, rewriteFrontMatter } from './front-matter-source.js';

const AUTHORED = [
  '---',
  '# Owned by the finance team',
  'type: skill',
  "name: 'Chase an overdue invoice'",
  'tags: [invoice, overdue]   # keep these short',
  'status: draft',
  'summary: >',
  '  Collect money owed',
  '  past the due date.',
  'x_owner: {team: ar}',
  '---',
  '',
  '## [check] Step 1: Check',
  '',
].join('\n');

const read = (text: string) => matter(text, {}).data as Record<string, unknown>;

describe('rewriteFrontMatter', () => {
  it('changes only the members whose value changed, keeping the rest byte for byte', () => {
    const before = read(AUTHORED);
    const text = rewriteFrontMatter(AUTHORED, before, { ...before, status: 'complete' }, '## [check] Step 1: Check\n')!;
    expect(text.split('\n').filter((line, index) => line !== AUTHORED.split('\n')[index])).toEqual(['status: complete', '## [check] Step 1: Check', '']);
    expect(text).toContain("name: 'Chase an overdue invoice'");
    expect(text).toContain('tags: [invoice, overdue]   # keep these short');
    expect(text).toContain('summary: >\n  Collect money owed\n  past the due date.\n');
    expect(text).toContain('# Owned by the finance team');
    expect(read(text)).toEqual({ ...before, status: 'complete' });
  });

  it('rewrites a changed member in place, deletes a removed one and appends a new one', () => {
    const before = read(AUTHORED);
    const { x_owner: _gone, ...rest } = before;
    const next = { ...rest, tags: ['invoice', 'late'], tool_url: null, learned_at: '2026-03-01T12:00:00.000Z' };
    const text = rewriteFrontMatter(AUTHORED, before, next, 'Body.\n')!;
    expect(text).not.toContain('x_owner');
    // The inline comment after the value stays.
    expect(text).toContain('tags: [invoice, late]   # keep these short');
    // Appended in order, with a date-like string quoted so gray-matter keeps it a string.
    expect(text).toMatch(/tool_url: null\nlearned_at: "2026-03-01T12:00:00.000Z"\n---\nBody\.\n$/);
    expect(read(text)).toEqual(next);
  });

  it('quotes strings a YAML 1.1 reader would take for something else', () => {
    const source = '---\ntype: skill\nname: x\n---\n';
    const next = { type: 'skill', name: 'yes', summary: 'on', category: '2026-01-01', tags: ['no'] };
    const text = rewriteFrontMatter(source, read(source), next, '')!;
    expect(read(text)).toEqual(next);
  });

  it('declines a file without a front matter mapping', () => {
    expect(rewriteFrontMatter('no front matter\n', {}, { type: 'skill' }, '')).toBeUndefined();
    expect(rewriteFrontMatter('---\n- a list\n---\n', {}, { type: 'skill' }, '')).toBeUndefined();
    expect(rewriteFrontMatter('---\nname: [unclosed\n---\n', {}, { type: 'skill' }, '')).toBeUndefined();
  });
});

describe('lineOfMember', () => {
  it('finds the file line of a top-level member, from a field path', () => {
    expect(lineOfMember(AUTHORED, 'type')).toBe(3);
    expect(lineOfMember(AUTHORED, 'frontmatter.status')).toBe(6);
    expect(lineOfMember(AUTHORED, 'tags.1')).toBe(5);
    expect(lineOfMember(AUTHORED, 'difficulty')).toBeUndefined();
    expect(lineOfMember('no front matter', 'type')).toBeUndefined();
  });
});
