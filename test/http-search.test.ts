/**
 * Search over HTTP beyond the basics of http-skills: `triggers` in front matter
 * (validated, indexed, named in reasons), `explain: true` and `why` (every candidate
 * with its matched words per field, score parts and why it was kept or cut), and their
 * validation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from './helpers/problem.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const body = (intro: string) => `${intro}\n\n## [first] Step 1: Do the first thing\n- Do it.\n`;

describe('search with triggers and explanations', () => {
  let t: TestInstance;
  let owner: { token: string };
  let structureId: string;
  const search = (payload: object) => t.server.inject({ method: 'POST', url: '/api/org/knowledge/search', headers: t.auth(owner.token), payload });
  const save = (slug: string, frontmatter: Record<string, unknown>, intro = 'Use it when needed.') =>
    t.server.inject({
      method: 'POST',
      url: '/api/org/knowledge/skills',
      headers: t.auth(owner.token),
      payload: { structure_id: structureId, slug, body: body(intro), frontmatter: { type: 'skill', category: 'ops', difficulty: 'low', status: 'complete', tags: [], ...frontmatter } },
    });

  beforeAll(async () => {
    t = await startInstance();
    owner = await t.createUser('owner@example.com');
    structureId = (await t.createStructure(owner.token, 'blank')).id;
    const saved = await Promise.all([
      save('handle-outage', { name: 'Handle a production outage', tags: ['incident'], summary: 'Restore service.', triggers: ['the site is down', 'customers cannot log in'] }),
      save('pay-suppliers', { name: 'Pay supplier invoices', tags: ['accounts-payable'], summary: 'Pay approved bills on time.' }),
      save('chase-invoices', { name: 'Chase overdue invoices', tags: ['collections'], summary: 'Collect late customer payments.' }),
      save('invoice-fax', { name: 'Fax invoices to suppliers', tags: ['fax'], summary: 'Old way of sending invoices.', status: 'draft' }),
    ]);
    for (const response of saved) expect(response.statusCode, response.body).toBe(201);
  });
  afterAll(() => t.close());

  it('stores triggers, indexes them and names the one that matched', async () => {
    const read = await t.server.inject({ method: 'GET', url: '/api/org/knowledge/skills/handle-outage', headers: t.auth(owner.token) });
    expect(read.json().frontmatter.triggers).toEqual(['the site is down', 'customers cannot log in']);
    const response = await search({ structure_id: structureId, query: 'help! the site is down since this morning' });
    expect(response.json().matches[0]).toMatchObject({ slug: 'handle-outage', reason: 'matched trigger "the site is down"' });
  });

  it('refuses triggers that are not a list of short sentences', async () => {
    for (const triggers of ['the site is down', [''], [42], ['x'.repeat(201)]]) {
      const problem = expectProblem(await save('bad-triggers', { name: 'Bad', triggers }), 400, 'invalid_request');
      expect(JSON.stringify(problem.errors)).toContain('frontmatter.triggers');
    }
  });

  it('explains every candidate with its words per field, score parts and fate', async () => {
    const response = await search({ structure_id: structureId, query: 'pay supplier invoices', limit: 1, explain: true });
    expect(response.statusCode).toBe(200);
    const { matches, explain } = response.json();
    expect(matches).toEqual([{ slug: 'pay-suppliers', score: expect.any(Number), reason: 'matched "pay", "supplier" and "invoices" in the name' }]);
    expect(explain.words.map((w: { word: string }) => w.word)).toEqual(['pay', 'supplier', 'invoices']);
    const [kept, ...rest] = explain.candidates;
    expect(kept).toMatchObject({ slug: 'pay-suppliers', kept: true, rank: 1, why: 'kept: ranked 1', fields: { name: ['pay', 'supplier', 'invoices'] } });
    expect(Object.keys(kept.parts).sort()).toEqual(['bm25', 'bonus', 'coverage', 'evidence', 'name_share', 'support', 'surface_share', 'trigger_share']);
    const chase = rest.find((c: { slug: string }) => c.slug === 'chase-invoices');
    expect(chase).toMatchObject({ kept: false, fields: { name: ['invoices'] } });
    expect(chase.why).toMatch(/^cut: /);
    expect(chase.rank).toBeUndefined();
    expect(explain.floor).toEqual({ min_evidence: expect.any(Number), support_slope: expect.any(Number), relative_cut: expect.any(Number) });
  });

  it('says why a named skill did not match, and why nothing matched chit-chat', async () => {
    const response = await search({ structure_id: structureId, query: 'fax invoices', why: ['invoice-fax', 'handle-outage'] });
    const candidates = response.json().explain.candidates as { slug: string; kept: boolean; why: string }[];
    expect(candidates.find((c) => c.slug === 'invoice-fax')).toMatchObject({ kept: false, why: expect.stringMatching(/draft/) as string });
    expect(candidates.find((c) => c.slug === 'handle-outage')).toMatchObject({ kept: false, why: 'cut: none of the query’s words occur in it' });

    const chat = await search({ structure_id: structureId, query: 'thanks, have a nice weekend', explain: true });
    expect(chat.json().matches).toEqual([]);
    expect(chat.json().explain.candidates.every((c: { kept: boolean }) => !c.kept)).toBe(true);
  });

  it('validates explain and why', async () => {
    expectProblem(await search({ structure_id: structureId, query: 'x', explain: 'yes' }), 400, 'invalid_request');
    expectProblem(await search({ structure_id: structureId, query: 'x', why: ['Not A Slug'] }), 400, 'invalid_request');
    expectProblem(await search({ structure_id: structureId, query: 'x', why: Array.from({ length: 11 }, (_, i) => `s-${i}`) }), 400, 'invalid_request');
    const plain = await search({ structure_id: structureId, query: 'pay supplier invoices' });
    expect(plain.json().explain).toBeUndefined();
  });
});
