import { describe, expect, it } from 'vitest';
import { queryWords } from './analyzer.js';
import type { SearchDocument } from './document.js';
import { boundedEditDistance } from './edit-distance.js';
import { createSkillSearchIndex, loadSkillSearchIndex, type SkillSearchIndex } from './engine.js';
import { decodeSnapshot, encodeSnapshot } from './snapshot.js';
import type { SynonymSource } from './wordnet.js';

const doc = (slug: string, over: Partial<SearchDocument>): SearchDocument => ({
  key: over.structure_id === undefined ? slug : `${over.structure_id}/${slug}`,
  slug,
  name: '',
  tags: [],
  triggers: [],
  summary: '',
  category: '',
  steps: [],
  intro: '',
  body: '',
  status: 'complete',
  ...over,
});

/** A small dictionary standing in for WordNet: knows a few words, suggests a few synonyms. */
const dictionary: SynonymSource = {
  synonyms: (word) => (word === 'website' ? [{ word: 'site', weight: 1 }] : word === 'rivals' ? [{ word: 'competitors', weight: 0.9 }] : []),
  knows: (word) => ['rain', 'poem', 'website', 'rivals', 'weather', 'love'].includes(word),
  antonyms: (word) => (word === 'hire' ? ['fire'] : []),
};

function sample(): SkillSearchIndex {
  const index = createSkillSearchIndex({ synonyms: dictionary });
  index.set(doc('chase-invoices', { name: 'Chase overdue invoices', tags: ['collections', 'dunning'], summary: 'Remind customers who pay late and collect what they owe.' }));
  index.set(doc('pay-suppliers', { name: 'Pay supplier invoices', tags: ['accounts-payable'], summary: 'Pay approved supplier bills on time.' }));
  index.set(doc('hiring', { name: 'Hire for an open role', tags: ['recruiting'], summary: 'Recruit and interview candidates.' }));
  index.set(
    doc('incident', {
      name: 'Triage a production incident',
      tags: ['outage', 'on-call'],
      triggers: ['the site is down', 'customers cannot log in'],
      summary: 'Restore service when production breaks.',
      intro: 'Use this when alerts fire or customers report errors.',
    }),
  );
  index.set(doc('competitors', { name: 'Run a competitive analysis', tags: ['battlecard'], summary: 'Compare competitors on price and features.' }));
  return index;
}

const slugs = (index: SkillSearchIndex, query: string, structureId?: string) =>
  index.search(query, { limit: 10, ...(structureId ? { structureId } : {}) }).map((m) => m.slug);

describe('skill search index', () => {
  it('ranks the skill whose name and tags carry the query first, with a one-sentence reason', () => {
    const [first] = sample().search('chase overdue invoices');
    expect(first).toMatchObject({ slug: 'chase-invoices', reason: 'matched "chase", "overdue" and "invoices" in the name' });
    expect(first?.score).toBeGreaterThan(0);
  });

  it('matches stems, typos of short and long words, and prefixes', () => {
    const index = sample();
    expect(slugs(index, 'reminding customers')[0]).toBe('chase-invoices');
    expect(index.search('incidnet')[0]).toMatchObject({ slug: 'incident', reason: 'matched "incidnet" (read as "incident") in the name' });
    expect(slugs(index, 'sit is dwn')[0]).toBe('incident');
    expect(slugs(index, 'battlec')[0]).toBe('competitors');
  });

  it('names a matched trigger in the reason', () => {
    expect(sample().search('help, the site is down!')[0]).toMatchObject({ slug: 'incident', reason: 'matched trigger "the site is down"' });
  });

  it('uses a synonym weighed by its sense, for the reason too', () => {
    expect(sample().search('rivals pricing')[0]).toMatchObject({ slug: 'competitors', reason: expect.stringContaining('"rivals" (as "competitors")') as string });
  });

  it('reads two words written apart as the one word the library has ("on board" → "onboard"), and says so', () => {
    const index = sample();
    index.set(doc('onboard-vendor', { name: 'Onboard a new vendor', tags: ['procurement'], summary: 'Set up a supplier before the first order.' }));
    index.set(doc('board-pack', { name: 'Prepare the board pack', tags: ['governance'], summary: 'Collect figures for the quarterly board meeting.' }));
    const [first] = index.search('bring a new supplier on board');
    expect(first).toMatchObject({ slug: 'onboard-vendor', reason: expect.stringContaining('"on board" (as "onboard")') as string });
    const plan = index.explain('bring a new supplier on board').words.find((w) => w.word === 'board');
    expect(plan?.matched_as).toContainEqual({ term: 'onboard', kind: 'compound', via: 'onboard' });
    // Only words the library writes as one: "board meeting" joins nothing.
    expect(index.explain('prepare the board meeting').words.flatMap((w) => w.matched_as.map((m) => m.kind))).not.toContain('compound');
  });

  it('tells paying from collecting: the direction of the request decides', () => {
    expect(slugs(sample(), 'pay a supplier invoice')[0]).toBe('pay-suppliers');
    expect(slugs(sample(), 'collect overdue payments from customers')[0]).toBe('chase-invoices');
  });

  it('lowers a skill named for what the query negates, and says why', () => {
    const index = sample();
    index.set(doc('renew', { name: 'Renew a customer contract', tags: ['renewal'], summary: 'Agree the next term with a customer before the contract ends.' }));
    index.set(doc('churned', { name: 'Offboard a churned customer', tags: ['churn'], summary: 'Close the account of a customer whose contract ended.' }));
    const scoreOf = (query: string) => index.search(query, { limit: 10 }).find((m) => m.slug === 'renew');
    const asked = scoreOf('the customer left and did renew');
    const negated = scoreOf('the customer left and did not renew');
    expect(asked?.reason).not.toContain('negates');
    expect(negated?.score).toBeCloseTo((asked?.score ?? 0) * 0.5, 2);
    expect(negated?.reason).toBe('matched "customer" and "renew" in the name, but its name says "renew", which the query negates');
    expect(index.explain('the customer left and did not renew').candidates.find((c) => c.slug === 'renew')?.contrast).toBe('renew');
    expect(index.explain('the customer left and did not renew').candidates.find((c) => c.slug === 'churned')?.contrast).toBeUndefined();
  });

  it('lowers a skill named for the opposite of a query word, and says why', () => {
    const index = sample();
    index.set(doc('firing', { name: 'Fire an engineer', tags: ['termination'], summary: 'Let an engineer go.' }));
    expect(slugs(index, 'hire an engineer')[0]).toBe('hiring');
    expect(index.search('hire an engineer', { limit: 10 }).find((m) => m.slug === 'firing')?.reason).toContain('but its name says "fire", the opposite of "hire"');
  });

  it('returns nothing for chit-chat, unrelated requests and dictionary words it lacks', () => {
    const index = sample();
    for (const query of ['hi there', 'thanks!', 'what is the weather in paris', 'is it going to rain', 'write me a poem', '???', 'what is love']) {
      expect(index.search(query), query).toEqual([]);
    }
  });

  it('never drops a word for being common: a word every skill of a kind shares still finds them all', () => {
    const index = createSkillSearchIndex();
    const kinds = ['plan', 'book', 'record', 'edit', 'publish', 'promote', 'review'];
    for (const verb of kinds) index.set(doc(`${verb}-podcast`, { name: `${verb} a podcast episode`, tags: ['podcast'], summary: `How we ${verb} episodes of our podcast.` }));
    index.set(doc('payroll', { name: 'Run payroll', tags: ['payroll'] }));
    expect(slugs(index, 'podcast').sort()).toEqual(kinds.map((verb) => `${verb}-podcast`).sort());
  });

  it('hides drafts, deprecated skills and other structures’ skills', () => {
    const index = sample();
    index.set(doc('draft', { name: 'Zebra grooming', status: 'draft' }));
    index.set(doc('old', { name: 'Zebra feeding', status: 'deprecated' }));
    index.set(doc('scoped', { name: 'Zebra counting', structure_id: 's1' }));
    expect(slugs(index, 'zebra')).toEqual([]);
    expect(slugs(index, 'zebra', 's1')).toEqual(['scoped']);
  });

  it('answers a deprecated skill asked for by name with its successor, and drops one without', () => {
    const index = sample();
    index.set(doc('incident-runbook-v1', { name: 'Outage runbook (2023)', status: 'deprecated', successors: ['incident'] }));
    index.set(doc('fax-invoices', { name: 'Fax invoices to the printer', status: 'deprecated', successors: ['no-such-skill'] }));
    const [first] = index.search('outage runbook 2023');
    expect(first).toMatchObject({ slug: 'incident', reason: expect.stringMatching(/^replaces deprecated "incident-runbook-v1", which matched/) as string });
    expect(slugs(index, 'fax invoices printer')).not.toContain('fax-invoices');
  });

  it('replaces and removes documents by slug, before and after compaction', () => {
    const index = sample();
    index.compact(true);
    index.set(doc('chase-invoices', { name: 'Pay suppliers twice' }));
    expect(slugs(index, 'dunning')).toEqual([]);
    expect(slugs(index, 'twice')).toEqual(['chase-invoices']);
    expect(index.remove('hiring')).toBe(true);
    expect(index.remove('hiring')).toBe(false);
    expect(slugs(index, 'recruit candidates')).toEqual([]);
    index.compact(true);
    expect(index.size).toBe(4);
    expect(slugs(index, 'twice')).toEqual(['chase-invoices']);
    expect(slugs(index, 'site is down')[0]).toBe('incident');
  });

  it('survives a binary snapshot round-trip, decoding the postings only when searched', () => {
    const index = sample();
    index.set(doc('scoped', { name: 'Zebra counting', structure_id: 's1', triggers: ['count the zebras'] }));
    const { meta, index: data } = decodeSnapshot(encodeSnapshot({ hello: 'world' }, index.toData()));
    expect(meta).toEqual({ hello: 'world' });
    expect(typeof data.base).toBe('function');
    const copy = loadSkillSearchIndex(data, { synonyms: dictionary });
    expect(copy.size).toBe(6);
    for (const query of ['chase overdue invoices', 'the site is down', 'incidnet', 'rivals pricing']) {
      expect(copy.search(query)).toEqual(index.search(query));
    }
    expect(copy.search('count the zebras', { structureId: 's1' })[0]).toMatchObject({ slug: 'scoped', reason: 'matched trigger "count the zebras"' });
    expect(() => decodeSnapshot(Buffer.from('not a snapshot'))).toThrow(TypeError);
    const damaged = encodeSnapshot({}, index.toData());
    expect(() => decodeSnapshot(damaged.subarray(0, damaged.length - 64))).toThrow(TypeError);
  });

  it('explains every candidate, including the ones it cut and skills asked about by slug', () => {
    const index = sample();
    index.set(doc('draft-invoices', { name: 'Chase invoices by fax', status: 'draft' }));
    const explanation = index.explain('supplier invoices', { limit: 1, slugs: ['draft-invoices', 'hiring', 'missing'] });
    const bySlug = new Map(explanation.candidates.map((c) => [c.slug, c]));
    expect(bySlug.get('pay-suppliers')).toMatchObject({ kept: true, rank: 1, why: 'kept: ranked 1', fields: { name: ['supplier', 'invoices'] } });
    expect(bySlug.get('chase-invoices')).toMatchObject({ kept: false, why: 'cut: ranked below the 1 asked for', fields: { name: ['invoices'] } });
    expect(bySlug.get('draft-invoices')?.why).toMatch(/draft/);
    expect(bySlug.get('hiring')?.why).toBe('cut: none of the query’s words occur in it');
    expect(bySlug.get('missing')?.why).toBe('cut: no skill has this slug');
    expect(explanation.words.map((w) => w.word)).toEqual(['supplier', 'invoices']);
    const none = index.explain('what is the weather like', { limit: 5 });
    expect(none.candidates.every((c) => !c.kept)).toBe(true);
  });
});

describe('query analysis', () => {
  it('keeps content words once, dropping chat filler', () => {
    expect(queryWords('Hi! Can you please help me chase the overdue invoices?').map((w) => w.stem)).toEqual(['chas', 'overdue', 'invoic']);
    expect(queryWords('we paid')[0]?.stem).toBe('pay');
  });

  it('measures edits with neighbour swaps as one and stops early', () => {
    expect(boundedEditDistance('incidnet', 'incident', 2)).toBe(1);
    expect(boundedEditDistance('dwn', 'down', 1)).toBe(1);
    expect(boundedEditDistance('paris', 'pays', 1)).toBe(2);
    expect(boundedEditDistance('completely', 'different', 2)).toBe(3);
  });
});
