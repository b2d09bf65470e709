import { describe, expect, it } from 'vitest';
import { createSkillSearchIndex, loadSkillSearchIndex } from './engine.js';
import type { SearchDocument } from './document.js';
import { createWordNet } from './wordnet.js';
import { editDistance, plausibleTypo } from './rank.js';
import { queryWords } from './analyzer.js';

const doc = (slug: string, over: Partial<SearchDocument>): SearchDocument => ({
  slug,
  name: '',
  tags: [],
  summary: '',
  category: '',
  steps: [],
  intro: '',
  body: '',
  status: 'complete',
  ...over,
});

function sample(): ReturnType<typeof createSkillSearchIndex> {
  const index = createSkillSearchIndex({ synonyms: createWordNet() });
  index.set(doc('invoices', { name: 'Chase invoices', tags: ['overdue'], summary: 'Remind customers who pay late.' }));
  index.set(doc('hiring', { name: 'Hire for an open role', summary: 'Recruit and interview candidates.' }));
  index.set(doc('incident', { name: 'Incident triage', tags: ['outage'], summary: 'Restore service when production breaks.' }));
  return index;
}

describe('skill search index', () => {
  it('explains which query words matched which fields', () => {
    expect(sample().search('overdue invoices')).toEqual([
      { slug: 'invoices', score: expect.any(Number) as number, reason: '"overdue" in tags; "invoices" in name' },
    ]);
  });

  it('matches stems, typos and WordNet synonyms', () => {
    const index = sample();
    expect(index.search('invoicing')[0]?.slug).toBe('invoices');
    expect(index.search('incidnet')[0]).toMatchObject({ slug: 'incident', reason: '"incidnet" in name (fuzzy match)' });
    expect(index.search('employ candidates')[0]).toMatchObject({
      slug: 'hiring',
      reason: '"employ" in name (as "hire"); "candidates" in summary',
    });
  });

  it('returns nothing for chit-chat and unrelated requests', () => {
    const index = sample();
    for (const query of ['hi there', 'thanks!', 'what is the weather in paris', 'tell me a joke', '???']) {
      expect(index.search(query)).toEqual([]);
    }
  });

  it('hides drafts, deprecated and other structures’ skills', () => {
    const index = sample();
    index.set(doc('draft', { name: 'Zebra grooming', status: 'draft' }));
    index.set(doc('old', { name: 'Zebra feeding', status: 'deprecated' }));
    index.set(doc('scoped', { name: 'Zebra counting', structure_id: 's1' }));
    expect(index.search('zebra')).toEqual([]);
    expect(index.search('zebra', { structureId: 's1' }).map((m) => m.slug)).toEqual(['scoped']);
  });

  it('replaces and removes documents by slug and survives a JSON round-trip', () => {
    const index = sample();
    index.set(doc('invoices', { name: 'Pay suppliers' }));
    expect(index.search('invoices')).toEqual([]);
    expect(index.search('suppliers').map((m) => m.slug)).toEqual(['invoices']);
    expect(index.remove('hiring')).toBe(true);
    expect(index.remove('hiring')).toBe(false);
    const copy = loadSkillSearchIndex(JSON.parse(JSON.stringify(index.toJSON())) as ReturnType<typeof index.toJSON>);
    expect(copy.size).toBe(2);
    expect(copy.search('suppliers').map((m) => m.slug)).toEqual(['invoices']);
    expect(copy.search('recruit')).toEqual([]);
  });

  it('analyses queries into content words', () => {
    expect(queryWords('Hi! Can you please help me chase the overdue invoices?').map((w) => w.stem)).toEqual([
      'chase',
      'overdu',
      'invoic',
    ]);
    expect(queryWords('we paid')[0]?.stem).toBe('pai');
    expect(editDistance('overdeu', 'overdue')).toBe(1);
    expect(plausibleTypo('paris', 'pays')).toBe(false);
    expect(plausibleTypo('invoise', 'invoice')).toBe(true);
  });
});
