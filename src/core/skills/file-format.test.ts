import { describe, expect, it } from 'vitest';
import { normalizeBody, parseSkillText, serializeSkill } from './file-format.js';
import { validateFrontmatter } from './frontmatter.js';
import type { SkillFrontmatter } from './types.js';

const defaults = { learned_by: 'user', learned_at: '2025-02-02T00:00:00.000Z', category: 'general', difficulty: 'medium' } as const;

describe('skill file format', () => {
  it('round-trips front matter with unknown members', () => {
    const fm: SkillFrontmatter = {
      type: 'skill',
      name: 'Invoice follow-up',
      category: 'finance',
      difficulty: 'high',
      tags: ['invoice', 'yes', '2024'],
      status: 'draft',
      summary: 'Summary: with a colon',
      learned_by: 'agent',
      learned_at: '2025-01-01T00:00:00.000Z',
      tool_url: 'https://tools.example.com/x',
      structure_id: '0b6f1a52-0000-4000-8000-000000000001',
      owner: { team: 'finance', reviewers: ['a', 'b'] },
      version: 3,
      looks_like_date: '2024-01-01',
    };
    const text = serializeSkill(fm, 'Body line\n');
    const parsed = parseSkillText('invoice', text, defaults);
    expect(parsed.ok && parsed.skill.frontmatter).toEqual(fm);
    expect(parsed.ok && parsed.skill.body).toBe('Body line\n');
  });

  it('fills absent optional members and converts YAML timestamps to ISO strings', () => {
    const parsed = parseSkillText('x', '---\ntype: skill\nname: X\nstatus: complete\nlearned_at: 2024-03-04T05:06:07Z\n---\n', defaults);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.skill.frontmatter).toMatchObject({
      category: 'general',
      difficulty: 'medium',
      tags: [],
      summary: '',
      learned_by: 'user',
      tool_url: null,
      learned_at: '2024-03-04T05:06:07.000Z',
    });
  });

  it('reports precise field errors for every member', () => {
    const result = validateFrontmatter(
      {
        type: 'recipe',
        name: '',
        category: 5,
        difficulty: 'hard',
        tags: ['ok', 3],
        status: 'done',
        summary: [],
        learned_by: 'robot',
        learned_at: 'yesterday',
        tool_url: 'ftp://x',
        structure_id: '',
      },
      defaults,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { path: 'frontmatter.type', message: 'must be "skill"' },
      { path: 'frontmatter.name', message: 'must be a non-empty string' },
      { path: 'frontmatter.category', message: 'must be a string' },
      { path: 'frontmatter.difficulty', message: 'must be one of low, medium, high' },
      { path: 'frontmatter.status', message: 'must be one of draft, complete, deprecated' },
      { path: 'frontmatter.tags[1]', message: 'must be a string' },
      { path: 'frontmatter.summary', message: 'must be a string' },
      { path: 'frontmatter.learned_by', message: 'must be one of system, agent, user' },
      { path: 'frontmatter.learned_at', message: 'must be an ISO 8601 timestamp' },
      { path: 'frontmatter.tool_url', message: 'must be an http(s) URL or null' },
      { path: 'frontmatter.structure_id', message: 'must be the id of a structure (a lowercase UUID), or absent for an instance skill' },
    ]);
  });

  it('turns unparsable files into messages, never exceptions', () => {
    const cases = ['', 'no front matter at all', '---\nname: [\n---\n', '---\n- a list\n---\n', '---\ntype: skill\n---\n'];
    for (const text of cases) {
      const parsed = parseSkillText('x', text, defaults);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message.length).toBeGreaterThan(0);
    }
  });

  it('keeps a body that starts with a --- line (gray-matter would read it as front matter)', () => {
    const fm = { type: 'skill', name: 'X', category: 'c', difficulty: 'low', tags: [], status: 'draft', summary: '', learned_by: 'user', learned_at: '2025-01-01T00:00:00.000Z', tool_url: null } as const;
    const parsed = parseSkillText('x', serializeSkill({ ...fm, tags: [] }, '---\ntitle: not front matter\n---\nText'), defaults);
    expect(parsed.ok && parsed.skill.body).toBe('---\ntitle: not front matter\n---\nText\n');
    expect(parsed.ok && Object.keys(parsed.skill.frontmatter)).not.toContain('title');
  });

  it('normalises bodies to LF with one final newline', () => {
    expect(normalizeBody('a\r\nb')).toBe('a\nb\n');
    expect(normalizeBody('a\n')).toBe('a\n');
    expect(normalizeBody('  \n')).toBe('');
  });
});
