import { describe, expect, it } from 'vitest';
import type { Skill } from '../types.js';
import { toSearchDocument } from './document.js';
import { createScopedIndex, loadScopedIndex, type ScopedSkillIndex } from './scoped-index.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

const skill = (slug: string, name: string, summary: string, structureId?: string): Skill => ({
  slug,
  frontmatter: {
    type: 'skill',
    name,
    category: 'finance',
    difficulty: 'medium',
    tags: [],
    status: 'complete',
    summary,
    learned_by: 'system',
    learned_at: '2025-01-01T00:00:00.000Z',
    tool_url: null,
    ...(structureId ? { structure_id: structureId } : {}),
  },
  body: '',
  steps: [],
});

function library(): ScopedSkillIndex {
  const index = createScopedIndex();
  index.set(toSearchDocument(skill('chase-invoices', 'Chase overdue invoices', 'Remind customers who pay late.')));
  index.set(toSearchDocument(skill('pay-suppliers', 'Pay supplier invoices', 'Pay approved supplier bills on time.')));
  index.set(toSearchDocument(skill('merger-checklist', 'Merger checklist', 'Steps of a merger or an acquisition.')));
  index.set(toSearchDocument(skill('invoice-follow-up', 'Invoice follow-up', 'Follow up on an invoice.', A)));
  return index;
}

/** Everything structure A can learn from search: matches, scores, reasons and the explanation. */
const viewOfA = (index: ScopedSkillIndex) =>
  ['merger acquisition', 'invoice merger', 'zanzibar', 'acquisiton'].map((query) => ({
    matches: index.search(query, { structureId: A, limit: 10 }),
    explain: index.explain(query, { structureId: A, limit: 10, slugs: ['secret-plan'] }),
  }));

describe('the scoped index (one MiniSearch per view of the library)', () => {
  it('answers a structure from the instance skills and its own, the same whatever another structure adds', () => {
    const index = library();
    expect(index.search('invoice', { structureId: A, limit: 10 }).map((m) => m.slug)).toContain('invoice-follow-up');
    expect(index.search('invoice', { limit: 10 }).map((m) => m.slug)).not.toContain('invoice-follow-up');
    const before = JSON.stringify(viewOfA(index));
    index.set(toSearchDocument(skill('secret-plan', 'Zanzibar merger', 'Plan the zanzibar merger acquisition.', B)));
    index.set(toSearchDocument(skill('zanzibar-invoice', 'Zanzibar invoice', 'Invoice zanzibar merger acquisition.', B)));
    // Not vacuous: B finds its skill.
    expect(index.search('zanzibar merger', { structureId: B })[0]?.slug).toBe('secret-plan');
    expect(JSON.stringify(viewOfA(index))).toBe(before);
    expect(index.structures().sort()).toEqual([A, B]);
    // An instance edit reaches every view.
    index.set(toSearchDocument(skill('pay-suppliers', 'Pay supplier invoices', 'Settle zanzibar bills.')));
    expect(index.search('zanzibar', { structureId: A })[0]?.slug).toBe('pay-suppliers');
    expect(index.search('zanzibar', { structureId: B, limit: 10 }).map((m) => m.slug)).toContain('pay-suppliers');
  });

  it('drops a structure’s index with its last skill, and restores every view from its JSON', async () => {
    const index = library();
    index.set(toSearchDocument(skill('secret-plan', 'Zanzibar merger', 'Plan the zanzibar merger acquisition.', B)));
    expect(index.size).toBe(5);
    const restored = await loadScopedIndex(index.toJSON());
    expect(restored.size).toBe(5);
    expect(JSON.stringify(viewOfA(restored))).toBe(JSON.stringify(viewOfA(index)));
    expect(restored.search('zanzibar merger', { structureId: B })[0]?.slug).toBe('secret-plan');
    expect(restored.remove(`${B}/secret-plan`)).toBe(true);
    expect(restored.remove(`${B}/secret-plan`)).toBe(false);
    expect(restored.structures()).toEqual([A]);
    expect(restored.search('zanzibar merger', { structureId: B }).map((m) => m.slug)).toEqual(['merger-checklist']);
    await expect(loadScopedIndex('{"x":[{}]}\n{}\n{}')).rejects.toThrow();
  });
});
