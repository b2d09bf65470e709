import { describe, expect, it } from 'vitest';
import type { Skill } from '../types.js';
import { queryWords, tokenize } from './analysis.js';
import { toSearchDocument } from './document.js';
import { createSkillIndex, loadSkillIndex, type SkillIndex } from './skill-index.js';
import type { SynonymSource } from './wordnet.js';

interface Over {
  name?: string;
  tags?: string[];
  triggers?: string[];
  summary?: string;
  body?: string;
  status?: 'draft' | 'complete' | 'deprecated';
  structure_id?: string;
  superseded_by?: string;
}

const skill = (slug: string, over: Over): Skill => ({
  slug,
  frontmatter: {
    type: 'skill',
    name: over.name ?? slug,
    category: 'general',
    difficulty: 'medium',
    tags: over.tags ?? [],
    status: over.status ?? 'complete',
    summary: over.summary ?? '',
    learned_by: 'system',
    learned_at: '2025-01-01T00:00:00.000Z',
    tool_url: null,
    ...(over.triggers ? { triggers: over.triggers } : {}),
    ...(over.structure_id ? { structure_id: over.structure_id } : {}),
    ...(over.superseded_by ? { superseded_by: over.superseded_by } : {}),
  },
  body: over.body ?? '',
  steps: [],
});

/** A small dictionary standing in for WordNet: knows a few words, suggests a few synonyms. */
const dictionary: SynonymSource = {
  synonyms: (word) => (word === 'website' ? [{ word: 'site', weight: 1 }] : word === 'rivals' ? [{ word: 'competitors', weight: 0.9 }] : []),
  knows: (word) => ['rain', 'poem', 'website', 'rivals', 'weather', 'love', 'teach', 'concepts', 'passport'].includes(word),
  antonyms: (word) => (word === 'hire' ? ['fire'] : []),
};

function sample(): SkillIndex {
  const index = createSkillIndex({ synonyms: dictionary });
  index.set(toSearchDocument(skill('chase-invoices', { name: 'Chase overdue invoices', tags: ['collections', 'dunning'], summary: 'Remind customers who pay late and collect what they owe.' })));
  index.set(toSearchDocument(skill('pay-suppliers', { name: 'Pay supplier invoices', tags: ['accounts-payable'], summary: 'Pay approved supplier bills on time.' })));
  index.set(toSearchDocument(skill('hiring', { name: 'Hire for an open role', tags: ['recruiting'], summary: 'Recruit and interview candidates.' })));
  index.set(
    toSearchDocument(
      skill('incident', {
        name: 'Triage a production incident',
        tags: ['outage', 'on-call'],
        triggers: ['the site is down', 'customers cannot log in'],
        summary: 'Restore service when production breaks.',
        body: 'Use this when alerts fire or customers report errors.',
      }),
    ),
  );
  index.set(toSearchDocument(skill('competitors', { name: 'Run a competitive analysis', tags: ['battlecard'], summary: 'Compare competitors on price and features.' })));
  index.set(toSearchDocument(skill('tech-radar', { name: 'Update the tech radar', tags: ['technology'], summary: 'Review the technologies the teams use.' })));
  return index;
}

const slugs = (index: SkillIndex, query: string, structureId?: string) => index.search(query, { limit: 10, ...(structureId ? { structureId } : {}) }).map((m) => m.slug);

describe('text analysis', () => {
  it('splits code names, joins hyphenated words and drops apostrophe suffixes', () => {
    expect(tokenize("getUserInfo Hotels_4_SearchHotel the customer's e-mail")).toEqual(['get', 'user', 'info', 'hotels', '4', 'search', 'hotel', 'the', 'customer', 'e', 'mail', 'email']);
  });

  it('keeps the content words of a query once, stemmed, dropping chat filler', () => {
    expect(queryWords('Hi! Can you please help me chase the overdue invoices?').map((w) => w.stem)).toEqual(['chas', 'overdue', 'invoic']);
    expect(queryWords('we paid')[0]?.stem).toBe('pay');
  });
});

describe('the skill index (MiniSearch)', () => {
  it('ranks the skill whose name and tags carry the query first, with a one-sentence reason', () => {
    const [first] = sample().search('chase overdue invoices');
    expect(first).toMatchObject({ slug: 'chase-invoices', reason: 'matched "chase", "overdue" and "invoices" in the name' });
    expect(first?.score).toBeGreaterThan(0);
  });

  it('matches stems, typos and unfinished words', () => {
    const index = sample();
    expect(slugs(index, 'reminding customers')[0]).toBe('chase-invoices');
    expect(index.search('incidnet')[0]).toMatchObject({ slug: 'incident', reason: 'matched "incidnet" (read as "incident") in the name' });
    expect(slugs(index, 'battlec')[0]).toBe('competitors');
  });

  it('reads an English word as another one only weakly: "teach" alone never answers with "tech"', () => {
    const index = sample();
    expect(index.search('teach')).toEqual([]);
    const explained = index.explain('teach');
    expect(explained.words[0]?.matched_as).toEqual([{ term: 'tech', kind: 'fuzzy', via: 'tech' }]);
    expect(explained.candidates.find((c) => c.slug === 'tech-radar')?.why).toMatch(/^cut: no answer/);
    expect(index.search('tehc radar')[0]?.slug).toBe('tech-radar');
  });

  it('names a matched trigger in the reason', () => {
    expect(sample().search('help, the site is down!')[0]).toMatchObject({ slug: 'incident', reason: 'matched trigger "the site is down"' });
  });

  it('ranks first a skill one of whose triggers the query holds whole, word for word, over one its other words favour', () => {
    const index = createSkillIndex({ synonyms: dictionary });
    index.set(toSearchDocument(skill('triage', { name: 'Triage a production incident', tags: ['incident', 'outage', 'api', 'sev'], summary: 'When the API or the site is down, stabilise the outage.', body: 'The API is down: page the on-call engineer; the API is down for every customer.' })));
    index.set(toSearchDocument(skill('command', { name: 'Take command of a production incident', tags: ['escalation'], triggers: ['we have a SEV1'], summary: 'The CTO commands a SEV1 and hands the triage on.' })));
    expect(slugs(index, 'We have a SEV1: the API is down')[0]).toBe('command');
    // The same words, not said as the trigger says them: no such preference.
    expect(slugs(index, 'the API is down, SEV1 and we have to act')[0]).toBe('triage');
  });

  it('uses a synonym weighed by its sense, for the reason too', () => {
    expect(sample().search('rivals pricing')[0]).toMatchObject({ slug: 'competitors', reason: expect.stringContaining('"rivals" (as "competitors")') as string });
  });

  it('reads two words written apart as the one word the library has ("on board" → "onboard"), and says so', () => {
    const index = sample();
    index.set(toSearchDocument(skill('onboard-vendor', { name: 'Onboard a new vendor', tags: ['procurement'], summary: 'Set up a supplier before the first order.' })));
    index.set(toSearchDocument(skill('board-pack', { name: 'Prepare the board pack', tags: ['governance'], summary: 'Collect figures for the quarterly board meeting.' })));
    const [first] = index.search('bring a new supplier on board');
    expect(first).toMatchObject({ slug: 'onboard-vendor', reason: expect.stringContaining('"on board" (as "onboard")') as string });
    const plan = index.explain('bring a new supplier on board').words.find((w) => w.word === 'board');
    expect(plan?.matched_as).toContainEqual({ term: 'onboard', kind: 'compound', via: 'onboard' });
    expect(index.explain('prepare the board meeting').words.flatMap((w) => w.matched_as.map((m) => m.kind))).not.toContain('compound');
  });

  it('tells paying from collecting: the direction of the request decides', () => {
    expect(slugs(sample(), 'pay a supplier invoice')[0]).toBe('pay-suppliers');
    expect(slugs(sample(), 'collect overdue payments from customers')[0]).toBe('chase-invoices');
  });

  it('lowers a skill named for what the query negates, and says why', () => {
    const index = sample();
    index.set(toSearchDocument(skill('renew', { name: 'Renew a customer contract', tags: ['renewal'], summary: 'Agree the next term with a customer before the contract ends.' })));
    index.set(toSearchDocument(skill('churned', { name: 'Offboard a churned customer', tags: ['churn'], summary: 'Close the account of a customer whose contract ended.' })));
    const scoreOf = (query: string) => index.search(query, { limit: 10 }).find((m) => m.slug === 'renew');
    const asked = scoreOf('the customer left and did renew');
    const negated = scoreOf('the customer left and did not renew');
    expect(asked?.reason).not.toContain('negates');
    expect(negated?.score).toBeCloseTo((asked?.score ?? 0) * 0.5, 2);
    expect(negated?.reason).toBe('matched "customer" and "renew" in the name, but its name says "renew", which the query negates');
    expect(index.explain('the customer left and did not renew').candidates.find((c) => c.slug === 'renew')?.contrast).toBe('renew');
  });

  it('lowers a skill named for the opposite of a query word, and says why', () => {
    const index = sample();
    index.set(toSearchDocument(skill('firing', { name: 'Fire an engineer', tags: ['termination'], summary: 'Let an engineer go.' })));
    expect(slugs(index, 'hire an engineer')[0]).toBe('hiring');
    expect(index.search('hire an engineer', { limit: 10 }).find((m) => m.slug === 'firing')?.reason).toContain('but its name says "fire", the opposite of "hire"');
  });

  it('returns nothing for chit-chat, unrelated requests and dictionary words it lacks', () => {
    const index = sample();
    for (const query of ['hi there', 'thanks!', 'what is the weather in paris', 'is it going to rain', 'write me a poem', '???', 'what is love', 'renew my passport']) {
      expect(index.search(query), query).toEqual([]);
    }
  });

  it('does not count a name it lacks against a request ("the site is down for Acme Corp")', () => {
    const index = sample();
    const explained = index.explain('the site is down for Acme Corp');
    expect(explained.words.find((w) => w.word === 'acme')?.weight).toBeLessThan(0.2);
    expect(index.search('the site is down for Acme Corp')[0]?.slug).toBe('incident');
  });

  it('never drops a word for being common: a word every skill of a kind shares still finds them all', () => {
    const index = createSkillIndex();
    const kinds = ['plan', 'book', 'record', 'edit', 'publish', 'promote', 'review'];
    for (const verb of kinds) index.set(toSearchDocument(skill(`${verb}-podcast`, { name: `${verb} a podcast episode`, tags: ['podcast'], summary: `How we ${verb} episodes of our podcast.` })));
    index.set(toSearchDocument(skill('payroll', { name: 'Run payroll', tags: ['payroll'] })));
    expect(slugs(index, 'podcast').sort()).toEqual(kinds.map((verb) => `${verb}-podcast`).sort());
  });

  it('hides drafts, deprecated skills and other structures’ skills, and follows the visibility it is given', () => {
    const index = sample();
    index.set(toSearchDocument(skill('draft', { name: 'Zebra grooming', status: 'draft' })));
    index.set(toSearchDocument(skill('old', { name: 'Zebra feeding', status: 'deprecated' })));
    index.set(toSearchDocument(skill('scoped', { name: 'Zebra counting', structure_id: 's1' })));
    index.set(toSearchDocument(skill('zebras', { name: 'Zebra painting' })));
    expect(slugs(index, 'zebra')).toEqual(['zebras']);
    expect(slugs(index, 'zebra', 's1').sort()).toEqual(['scoped', 'zebras']);
    expect(index.search('zebra', { structureId: 's1', visible: (entry) => entry.slug !== 'zebras' }).map((m) => m.slug)).toEqual(['scoped']);
  });

  it('answers a deprecated skill asked for by name with its successor, named by slug or by name', () => {
    const index = sample();
    index.set(toSearchDocument(skill('incident-runbook-v1', { name: 'Outage runbook (2023)', status: 'deprecated', superseded_by: 'incident' })));
    index.set(toSearchDocument(skill('fax-invoices', { name: 'Fax invoices to the printer', status: 'deprecated', body: 'Use no-such-skill.' })));
    index.set(toSearchDocument(skill('vendor-cheques', { name: 'Mail cheques to vendors', status: 'deprecated', body: 'Retired in 2024. Use “Pay supplier invoices” instead.' })));
    expect(index.search('outage runbook 2023')[0]).toMatchObject({ slug: 'incident', reason: expect.stringMatching(/^replaces deprecated "incident-runbook-v1", which matched/) as string });
    expect(slugs(index, 'fax invoices printer')).not.toContain('fax-invoices');
    expect(index.search('mail cheques to vendors')[0]).toMatchObject({ slug: 'pay-suppliers', reason: expect.stringMatching(/^replaces deprecated "vendor-cheques"/) as string });
    expect(index.explain('mail cheques to vendors').candidates[0]).toMatchObject({ slug: 'pay-suppliers', replaces: 'vendor-cheques', kept: true });
  });

  it('replaces and discards documents by id', () => {
    const index = sample();
    index.set(toSearchDocument(skill('chase-invoices', { name: 'Pay suppliers twice' })));
    expect(slugs(index, 'dunning')).toEqual([]);
    expect(slugs(index, 'twice')).toEqual(['chase-invoices']);
    expect(index.remove('hiring')).toBe(true);
    expect(index.remove('hiring')).toBe(false);
    expect(slugs(index, 'recruit candidates')).toEqual([]);
    expect(index.size).toBe(5);
    expect(slugs(index, 'site is down')[0]).toBe('incident');
  });

  it('survives its snapshot (MiniSearch’s JSON) and answers the same', async () => {
    const index = sample();
    index.set(toSearchDocument(skill('scoped', { name: 'Zebra counting', structure_id: 's1', triggers: ['count the zebras'] })));
    const copy = await loadSkillIndex(index.toJSON(), { synonyms: dictionary });
    expect(copy.size).toBe(7);
    for (const query of ['chase overdue invoices', 'the site is down', 'incidnet', 'rivals pricing', 'battlec']) expect(copy.search(query)).toEqual(index.search(query));
    expect(copy.search('count the zebras', { structureId: 's1' })[0]).toMatchObject({ slug: 'scoped', reason: 'matched trigger "count the zebras"' });
    copy.set(toSearchDocument(skill('otters', { name: 'Otter feeding' })));
    expect(slugs(copy, 'otter')).toEqual(['otters']);
    await expect(loadSkillIndex('not a snapshot')).rejects.toThrow();
  });

  it('explains every candidate, including the ones it cut and skills asked about by slug', () => {
    const index = sample();
    index.set(toSearchDocument(skill('draft-invoices', { name: 'Chase invoices by fax', status: 'draft' })));
    index.set(toSearchDocument(skill('theirs', { name: 'Supplier invoices of another team', structure_id: 's2' })));
    const explanation = index.explain('supplier invoices', { limit: 1, slugs: ['draft-invoices', 'hiring', 'missing', 'theirs'] });
    const bySlug = new Map(explanation.candidates.map((c) => [c.slug, c]));
    expect(bySlug.get('pay-suppliers')).toMatchObject({ kept: true, rank: 1, why: 'kept: ranked 1', fields: { name: ['supplier', 'invoices'] } });
    expect(bySlug.get('chase-invoices')).toMatchObject({ kept: false, why: 'cut: ranked below the 1 asked for', fields: { name: ['invoices'] } });
    expect(bySlug.get('draft-invoices')?.why).toMatch(/draft/);
    expect(bySlug.get('hiring')?.why).toBe('cut: none of the query’s words occur in it');
    expect(bySlug.get('missing')?.why).toBe('cut: no skill has this slug');
    // Another structure's skill is not there for this asker, by any path.
    expect(bySlug.get('theirs')).toMatchObject({ why: 'cut: no skill has this slug', name: '', status: 'unknown' });
    expect(explanation.words.map((w) => w.word)).toEqual(['supplier', 'invoices']);
    const none = index.explain('what is the weather like', { limit: 5 });
    expect(none.candidates.every((c) => !c.kept)).toBe(true);
  });
});
