import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSkillText } from './file-format.js';
import { createSkillStore, type SkillStore } from './store.js';
import { tempHome, type TempHome } from '../../../test/helpers/skills.js';
import { SKILL_DIFFICULTIES, SKILL_LEARNERS, SKILL_STATUSES } from './types.js';

let home: TempHome;
let store: SkillStore;
beforeAll(async () => {
  home = await tempHome();
  store = await createSkillStore({ root: home.root, stateDir: home.stateDir, synonyms: false, persistIndex: false });
});
afterAll(async () => {
  await store.close();
  await home.cleanup();
});

const slug = fc.stringMatching(/^[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}$/);
const text = fc.string({ maxLength: 60, unit: 'grapheme' });
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.stringMatching(/^[a-z][a-z_]{0,8}$/), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const extraKey = fc.stringMatching(/^x_[a-z_]{1,10}$/);
const iso = fc
  .date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date('2099-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const frontmatter = fc.record({
  type: fc.constant('skill' as const),
  name: text.filter((s) => s.trim() !== '' && s.length <= 200),
  category: text,
  difficulty: fc.constantFrom(...SKILL_DIFFICULTIES),
  tags: fc.array(text, { maxLength: 5 }),
  status: fc.constantFrom(...SKILL_STATUSES),
  summary: text,
  learned_by: fc.constantFrom(...SKILL_LEARNERS),
  learned_at: iso,
  tool_url: fc.option(fc.webUrl(), { nil: null }),
});
const body = fc
  .array(fc.oneof(fc.string({ maxLength: 80, unit: 'grapheme' }), fc.constantFrom('## [a] Step 1: One', '```', '---', '# T', '')), {
    maxLength: 8,
  })
  // Step ids are unique in a valid skill (a duplicate is refused): number each heading.
  .map((lines) => {
    let step = 0;
    return lines.map((line) => (line === '## [a] Step 1: One' ? `## [s${++step}] Step ${step}: One` : line)).join('\n');
  });

describe('properties', () => {
  it('any valid skill round-trips through upsert and get unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(slug, frontmatter, fc.dictionary(extraKey, json, { maxKeys: 3 }), body, async (s, fm, extra, b) => {
        await store.remove(s).catch(() => undefined);
        const input = { ...fm, ...extra };
        const { skill } = await store.upsert({ slug: s, frontmatter: input, body: b });
        expect(skill.frontmatter).toEqual(input);
        const stored = await store.get(s);
        expect(stored).toEqual(skill);
        // Stored bodies are canonical (LF, final newline): storing them again changes nothing.
        const again = await store.upsert({ slug: s, frontmatter: skill.frontmatter, body: skill.body });
        expect(again.skill).toEqual(skill);
      }),
      { numRuns: 60 },
    );
  });

  it('no input string crashes the parser', () => {
    const defaults = { learned_by: 'user', learned_at: '2025-01-01T00:00:00.000Z', category: 'general', difficulty: 'medium' } as const;
    const withMatter = fc.tuple(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 })).map(([a, b]) => `---\n${a}\n---\n${b}`);
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 400 }), withMatter), (input) => {
        const result = parseSkillText('x', input, defaults);
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
  });
});
