/**
 * Skill library routes over HTTP (API.md §4): list filters and scoping, get with steps,
 * upsert codes and validation, delete into .deleted/ and restore, search, problems,
 * git history, path traversal, and a property test that any valid skill round-trips.
 */
import { readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initRepo, requireGit } from './helpers/git.js';
import { expectProblem } from './helpers/problem.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { nextChange } from './helpers/skills.js';

const BODY = [
  'Use this when an invoice is overdue.',
  '',
  '## [check-ledger] Step 1: Check the ledger',
  'Look the invoice up.',
  '',
  '```md',
  '## [not-a-step] Step 9: inside a code block',
  '```',
  '',
  '## [send-reminder] Step 2: Send a reminder',
  'Decision: remind politely first.',
  '',
].join('\n');

function frontmatter(overrides: Record<string, unknown> = {}) {
  return {
    type: 'skill',
    name: 'Chase an overdue invoice',
    category: 'finance',
    difficulty: 'low',
    tags: ['invoice', 'overdue'],
    status: 'complete',
    summary: 'Collect money owed by a customer past the due date.',
    ...overrides,
  };
}

describe('skills over HTTP', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let viewer: { token: string; id: string };
  let structureId: string;
  let otherStructureId: string;

  const post = (payload: unknown, token = owner.token) =>
    t.server.inject({ method: 'POST', url: '/api/org/knowledge/skills', headers: t.auth(token), payload: payload as object });
  const get = (url: string, token = owner.token) => t.server.inject({ method: 'GET', url, headers: t.auth(token) });

  beforeAll(async () => {
    t = await startInstance();
    owner = await t.createUser('owner@example.com');
    viewer = await t.createUser('viewer@example.com');
    structureId = (await t.createStructure(owner.token, 'blank')).id;
    otherStructureId = (await t.createStructure(owner.token, 'blank', 'Other')).id;
    await t.app.members.set(structureId, viewer.id, 'viewer');
  });
  afterAll(() => t.close());

  it('creates with 201, updates with 200, keeps learned_at and unknown members, parses steps', async () => {
    const created = await post({ structure_id: structureId, slug: 'chase-invoice', frontmatter: frontmatter({ x_owner: { team: 'ar' } }), body: BODY });
    expect(created.statusCode, created.body).toBe(201);
    const skill = created.json();
    expect(skill.slug).toBe('chase-invoice');
    expect(skill.frontmatter.learned_by).toBe('user');
    expect(skill.frontmatter.learned_at).toMatch(/Z$/);
    expect(skill.frontmatter.x_owner).toEqual({ team: 'ar' });
    expect(skill.steps).toEqual([
      { id: 'check-ledger', n: 1, title: 'Check the ledger' },
      { id: 'send-reminder', n: 2, title: 'Send a reminder' },
    ]);
    // A structure's skill is its own: stored in its folder, with its structure_id.
    expect(skill.frontmatter.structure_id).toBe(structureId);
    const file = await readFile(join(t.home, 'skills', structureId, 'chase-invoice.md'), 'utf8');
    expect(file).toMatch(/^---\n/);
    expect(file).toContain('x_owner');

    const updated = await post({ structure_id: structureId, slug: 'chase-invoice', frontmatter: frontmatter({ summary: 'Updated.', learned_at: '2000-01-01T00:00:00.000Z' }), body: BODY });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().frontmatter.summary).toBe('Updated.');
    expect(updated.json().frontmatter.learned_at).toBe(skill.frontmatter.learned_at);

    const read = await get('/api/org/knowledge/skills/chase-invoice', viewer.token);
    expect(read.statusCode).toBe(200);
    expect(read.json().body).toBe(updated.json().body);
  });

  it('creates only with If-None-Match: * (409 already_exists, nothing replaced), and keeps a replaced version', async () => {
    const createOnly = (payload: object, value = '*') =>
      t.server.inject({ method: 'POST', url: '/api/org/knowledge/skills', headers: { ...t.auth(owner.token), 'if-none-match': value }, payload });
    const payload = { structure_id: structureId, slug: 'onboard-new-hire', frontmatter: frontmatter({ name: 'Onboard new hire' }), body: BODY };
    expect((await createOnly(payload)).statusCode).toBe(201);
    const file = join(t.home, 'skills', structureId, 'onboard-new-hire.md');
    const published = await readFile(file, 'utf8');

    const taken = expectProblem(await createOnly({ ...payload, frontmatter: frontmatter({ name: 'Template', status: 'draft' }), body: 'x' }), 409, 'already_exists', ['slug']);
    expect(taken).toMatchObject({ slug: 'onboard-new-hire', title: 'Already exists' });
    expect(taken.detail).toContain('onboard-new-hire');
    expect(await readFile(file, 'utf8')).toBe(published);
    expectProblem(await createOnly(payload, '"v1"'), 400, 'invalid_request');

    // A plain POST replaces, and the replaced text stays recoverable in .deleted/.
    expect((await post({ ...payload, frontmatter: frontmatter({ name: 'Onboard new hire', summary: 'Second.' }) })).statusCode).toBe(200);
    const kept = (await readdir(join(t.home, 'skills', structureId, '.deleted'))).filter((name) => name.startsWith('onboard-new-hire--'));
    expect(kept).toEqual([expect.stringMatching(/\.replaced\.md$/)]);
    expect(await readFile(join(t.home, 'skills', structureId, '.deleted', kept[0]!), 'utf8')).toBe(published);
    const deleted = (await get(`/api/org/knowledge/deleted?structure_id=${structureId}`)).json().skills as { slug: string; reason: string }[];
    expect(deleted.filter((entry) => entry.slug === 'onboard-new-hire')).toEqual([expect.objectContaining({ reason: 'replaced', name: 'Onboard new hire' })]);

    // The OpenAPI document carries the header and the 409.
    const doc = (await t.server.inject({ method: 'GET', url: '/api/org/openapi.json' })).json();
    const operation = doc.paths['/api/org/knowledge/skills'].post;
    expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'if-none-match' })]));
    expect(Object.keys(operation.responses)).toContain('409');
  });

  it('validates the front matter with field errors and writes nothing', async () => {
    const before = await readdir(join(t.home, 'skills'));
    const bad = await post({ structure_id: structureId, slug: 'bad-one', frontmatter: frontmatter({ type: 'recipe', status: 'finished', name: '' }), body: 'x' });
    const problem = expectProblem(bad, 400, 'invalid_request');
    const paths = (problem.errors as { path: string }[]).map((error) => error.path).join(' ');
    expect(paths).toMatch(/status/);
    expect(paths).toMatch(/type/);
    expect(paths).toMatch(/name/);
    const huge = await post({ structure_id: structureId, slug: 'huge', frontmatter: frontmatter(), body: 'x'.repeat(256 * 1024 + 1) });
    expectProblem(huge, 400, 'invalid_request');
    expect(await readdir(join(t.home, 'skills'))).toEqual(before);
  });

  it('rejects path traversal and bad slugs', async () => {
    for (const slug of ['../etc/passwd', 'A-B', '..', 'a/b', 'x'.repeat(65)]) {
      expectProblem(await post({ structure_id: structureId, slug, frontmatter: frontmatter(), body: BODY }), 400, 'invalid_request');
    }
    expectProblem(await get('/api/org/knowledge/skills/..%2F..%2Fetc%2Fpasswd'), 400, 'invalid_request');
    expectProblem(await get('/api/org/knowledge/skills/nope-nope'), 404, 'not_found');
  });

  it('lets viewers read but not write, and requires structure_id for user tokens', async () => {
    expectProblem(await post({ structure_id: structureId, slug: 'viewer-try', frontmatter: frontmatter(), body: BODY }, viewer.token), 403, 'forbidden');
    expectProblem(await get('/api/org/knowledge/skills'), 400, 'invalid_request');
    expectProblem(await get('/api/org/knowledge/skills?structure_id=' + structureId, 'org_u_unknownunknownunknownunknownunknown'), 401, 'unauthorized');
  });

  it('lists with status, category and tag filters; deprecated hidden by default; scoped skills only in their structure', async () => {
    await post({ structure_id: structureId, slug: 'old-way', frontmatter: frontmatter({ status: 'deprecated', tags: ['legacy'] }), body: BODY });
    await post({ structure_id: structureId, slug: 'draft-way', frontmatter: frontmatter({ status: 'draft', category: 'sales' }), body: BODY });
    await post({ structure_id: structureId, slug: 'scoped-way', frontmatter: frontmatter({ structure_id: structureId }), body: BODY });
    const slugs = async (query: string, sid = structureId) =>
      (await get(`/api/org/knowledge/skills?structure_id=${sid}${query}`)).json().skills.map((s: { slug: string }) => s.slug);
    const all = await slugs('');
    expect(all).toContain('draft-way');
    expect(all).toContain('scoped-way');
    expect(all).not.toContain('old-way');
    expect(all).toEqual([...all].sort());
    expect(await slugs('&status=deprecated')).toEqual(['old-way']);
    expect(await slugs('&category=sales')).toEqual(['draft-way']);
    expect(await slugs('&tag=legacy&status=deprecated,complete')).toEqual(['old-way']);
    expect(await slugs('', otherStructureId)).not.toContain('scoped-way');
    // A member of another structure only cannot read the scoped skill.
    const outsider = await t.createUser('outsider@example.com');
    await t.app.members.set(otherStructureId, outsider.id, 'owner');
    expectProblem(await get('/api/org/knowledge/skills/scoped-way', outsider.token), 404, 'not_found');
    expectProblem(await get(`/api/org/knowledge/skills/scoped-way?structure_id=${otherStructureId}`, outsider.token), 404, 'not_found');
    expect((await get('/api/org/knowledge/skills/old-way', viewer.token)).statusCode).toBe(200);
    // Another structure writing the same slug writes a skill of its own; the first is untouched.
    const theirs = await post({ structure_id: otherStructureId, slug: 'scoped-way', frontmatter: frontmatter({ summary: 'Theirs.' }), body: BODY });
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect((await get(`/api/org/knowledge/skills/scoped-way?structure_id=${structureId}`)).json().frontmatter.summary).toBe(frontmatter().summary);
    expect((await get(`/api/org/knowledge/skills/scoped-way?structure_id=${otherStructureId}`)).json().frontmatter.summary).toBe('Theirs.');
  });

  it('deletes into skills/.deleted/ with 204 and restores the newest version (409 live, 404 none)', async () => {
    await post({ structure_id: structureId, slug: 'to-delete', frontmatter: frontmatter({ summary: 'v1' }), body: BODY });
    const deleted = await t.server.inject({ method: 'DELETE', url: `/api/org/knowledge/skills/to-delete?structure_id=${structureId}`, headers: t.auth(owner.token) });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    const trash = await readdir(join(t.home, 'skills', structureId, '.deleted'));
    expect(trash.some((name) => name.startsWith('to-delete--') && name.endsWith('.md'))).toBe(true);
    expectProblem(await get('/api/org/knowledge/skills/to-delete'), 404, 'not_found');
    expect((await get(`/api/org/knowledge/skills?structure_id=${structureId}`)).json().skills.map((s: { slug: string }) => s.slug)).not.toContain('to-delete');
    const listed = (await get(`/api/org/knowledge/deleted?structure_id=${structureId}`)).json().skills;
    expect(listed.find((s: { slug: string }) => s.slug === 'to-delete')).toMatchObject({ name: 'Chase an overdue invoice', deleted_at: expect.stringMatching(/Z$/) });
    expectProblem(
      await t.server.inject({ method: 'DELETE', url: `/api/org/knowledge/skills/to-delete?structure_id=${structureId}`, headers: t.auth(owner.token) }),
      404,
      'not_found',
    );

    // A structure-scoped deleted skill is listed for its own structure only.
    await post({ structure_id: structureId, slug: 'scoped-gone', frontmatter: frontmatter({ structure_id: structureId }), body: BODY });
    await t.server.inject({ method: 'DELETE', url: `/api/org/knowledge/skills/scoped-gone?structure_id=${structureId}`, headers: t.auth(owner.token) });
    const deletedIn = async (sid: string) =>
      (await get(`/api/org/knowledge/deleted?structure_id=${sid}`)).json().skills.map((s: { slug: string }) => s.slug);
    expect(await deletedIn(structureId)).toContain('scoped-gone');
    expect(await deletedIn(otherStructureId)).not.toContain('scoped-gone');
    expect(await deletedIn(otherStructureId)).not.toContain('to-delete');

    const restored = await t.server.inject({ method: 'POST', url: `/api/org/knowledge/skills/to-delete/restore?structure_id=${structureId}`, headers: t.auth(owner.token) });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json().frontmatter.summary).toBe('v1');
    expectProblem(
      await t.server.inject({ method: 'POST', url: `/api/org/knowledge/skills/to-delete/restore?structure_id=${structureId}`, headers: t.auth(owner.token) }),
      409,
      'conflict',
    );
    expectProblem(
      await t.server.inject({ method: 'POST', url: `/api/org/knowledge/skills/never-was/restore?structure_id=${structureId}`, headers: t.auth(owner.token) }),
      404,
      'not_found',
    );
  });

  it('searches complete skills only, with reasons, and validates limit and query', async () => {
    const search = (payload: object) => t.server.inject({ method: 'POST', url: '/api/org/knowledge/search', headers: t.auth(viewer.token), payload });
    const response = await search({ structure_id: structureId, query: 'customer has an overdue invoice', limit: 5 });
    expect(response.statusCode).toBe(200);
    const matches = response.json().matches as { slug: string; score: number; reason: string }[];
    expect(matches.length).toBeGreaterThan(0);
    expect(matches.map((m) => m.slug)).not.toContain('draft-way');
    expect(matches.map((m) => m.slug)).not.toContain('old-way');
    expect(matches[0]!.reason).toMatch(/invoice|overdue/);
    for (let i = 1; i < matches.length; i++) expect(matches[i - 1]!.score).toBeGreaterThanOrEqual(matches[i]!.score);
    expectProblem(await search({ structure_id: structureId, query: 'x', limit: 0 }), 400, 'invalid_request');
    expectProblem(await search({ structure_id: structureId, query: 'x', limit: 51 }), 400, 'invalid_request');
    expectProblem(await search({ structure_id: structureId, query: '', limit: 5 }), 400, 'invalid_request');
    expectProblem(await search({ structure_id: structureId, query: 'q'.repeat(1001) }), 400, 'invalid_request');
    const defaults = await search({ structure_id: structureId, query: 'hello, how are you today?' });
    expect(defaults.json()).toEqual({ matches: [] });
  });

  it('lists files that do not parse at /problems', async () => {
    const reported = nextChange(t.app.skills, (event) => event.type === 'problem' && event.file === 'broken.md', 'the problem of broken.md');
    await writeFile(join(t.home, 'skills', 'broken.md'), '---\ntype: skill\nname: [unclosed\n---\nbody');
    await reported;
    const problems = (await get('/api/org/knowledge/problems')).json().problems as { file: string; message: string; line?: number }[];
    expect(problems.find((p) => p.file === 'broken.md')).toEqual({ file: 'broken.md', message: expect.stringContaining('not valid YAML'), line: 3 });
    expect(JSON.stringify(problems)).not.toContain(t.home);
    expect((await get('/api/org/health')).json().status).toBe('ok');
  });

  it('round-trips any valid skill through POST and GET unchanged (property)', async () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
    const arbitrary = fc.record({
      slug: fc.array(word, { minLength: 1, maxLength: 4 }).map((words) => words.join('-').slice(0, 60).replace(/-+$/, '')),
      name: fc.string({ minLength: 1, maxLength: 80 }).filter((s) => s.trim().length > 0),
      tags: fc.array(word, { maxLength: 5 }),
      status: fc.constantFrom('draft', 'complete', 'deprecated'),
      difficulty: fc.constantFrom('low', 'medium', 'high'),
      summary: fc.string({ maxLength: 200 }),
      body: fc.string({ maxLength: 400 }),
    });
    await fc.assert(
      fc.asyncProperty(arbitrary, async (input) => {
        const payload = {
          structure_id: structureId,
          slug: `prop-${input.slug}`,
          frontmatter: frontmatter({ name: input.name, tags: input.tags, status: input.status, difficulty: input.difficulty, summary: input.summary }),
          body: input.body,
        };
        const written = await post(payload);
        expect([200, 201]).toContain(written.statusCode);
        const read = (await get(`/api/org/knowledge/skills/prop-${input.slug}`)).json();
        expect(read).toEqual(written.json());
        expect(read.frontmatter).toMatchObject({ name: input.name, tags: input.tags, status: input.status, summary: input.summary });
      }),
      { numRuns: 40 },
    );
  });
});

describe('skill git history', () => {
  it('commits API writes with --commit and lists the commits of a file', async (context) => {
    requireGit(context);
    const t = await startInstance({ config: { commit: true } });
    try {
      await initRepo(t.home);
      const owner = await t.createUser('git@example.com');
      const sid = (await t.createStructure(owner.token, 'blank')).id;
      const payload = { structure_id: sid, slug: 'tracked', frontmatter: frontmatter(), body: BODY };
      expect((await t.server.inject({ method: 'POST', url: '/api/org/knowledge/skills', headers: t.auth(owner.token), payload })).statusCode).toBe(201);
      const update = { ...payload, frontmatter: frontmatter({ summary: 'Second version.' }) };
      expect((await t.server.inject({ method: 'POST', url: '/api/org/knowledge/skills', headers: t.auth(owner.token), payload: update })).statusCode).toBe(200);
      const history = await t.server.inject({ method: 'GET', url: '/api/org/knowledge/skills/tracked/history', headers: t.auth(owner.token) });
      const commits = history.json().commits as { message: string }[];
      expect(commits.length).toBe(2);
      expect(commits[0]!.message).toMatch(/tracked/);
      expect(commits[0]!.message).toMatch(/git@example.com/);
    } finally {
      await t.close();
    }
  });
});

describe('editor edits through a listening server', () => {
  // Each step waits for the store's change event of the edit, then reads over HTTP; the
  // latency from an edit to search is measured by `npm run bench -- search-core`.
  it('shows a file added, changed, renamed and removed on disk in list, get and search', async () => {
    const t = await startInstance({ listen: true });
    try {
      const owner = await t.createUser('editor@example.com');
      const sid = (await t.createStructure(owner.token, 'blank')).id;
      const headers = { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' };
      const file = join(t.home, 'skills', 'reconcile-payroll.md');
      const text = (summary: string) =>
        `---\ntype: skill\nname: Reconcile payroll\ncategory: finance\ndifficulty: medium\ntags: [payroll, reconciliation]\nstatus: complete\nsummary: ${summary}\n---\n\n## [compare] Step 1: Compare payroll to the ledger\nCompare.\n`;
      const summaryOf = (slug: string) => t.app.skills.list().find((entry) => entry.slug === slug)?.summary ?? '';
      /** The watcher's upsert of `slug` once its summary contains `words`. */
      const upserted = (slug: string, words: string) =>
        nextChange(t.app.skills, (event) => event.type === 'upsert' && event.slug === slug && summaryOf(slug).includes(words), `${slug} with "${words}"`);
      const removed = (slug: string) => nextChange(t.app.skills, (event) => event.type === 'remove' && event.slug === slug, `the removal of ${slug}`);
      const getSkill = (slug = 'reconcile-payroll') => fetch(`${t.url}/api/org/knowledge/skills/${slug}`, { headers });
      const summary = async () => ((await (await getSkill()).json()) as { frontmatter: { summary: string } }).frontmatter.summary;
      const search = async (query: string) =>
        ((await (await fetch(`${t.url}/api/org/knowledge/search`, { method: 'POST', headers, body: JSON.stringify({ structure_id: sid, query }) })).json()) as {
          matches: { slug: string }[];
        }).matches.map((m) => m.slug);
      const listed = async () =>
        ((await (await fetch(`${t.url}/api/org/knowledge/skills?structure_id=${sid}`, { headers })).json()) as { skills: { slug: string }[] }).skills.map((s) => s.slug);

      let applied = upserted('reconcile-payroll', 'general ledger');
      await writeFile(file, text('Match payroll runs against the general ledger.'));
      await applied;
      expect((await getSkill()).status).toBe(200);
      expect(await search('payroll reconciliation')).toContain('reconcile-payroll');
      expect(await listed()).toContain('reconcile-payroll');

      applied = upserted('reconcile-payroll', 'gratuities');
      await writeFile(file, text('Now mentions gratuities explicitly.'));
      await applied;
      expect(await summary()).toContain('gratuities');
      expect(await search('gratuities')).toEqual(['reconcile-payroll']);

      // An editor's save: write a temp file, then rename it over the original.
      applied = upserted('reconcile-payroll', 'temp file');
      await writeFile(`${file}.tmp~`, text('Saved through a temp file.'));
      await rename(`${file}.tmp~`, file);
      await applied;
      expect(await summary()).toContain('temp file');

      const renamed = join(t.home, 'skills', 'payroll-reconciliation.md');
      const gone = removed('reconcile-payroll');
      applied = upserted('payroll-reconciliation', 'temp file');
      await rename(file, renamed);
      await Promise.all([gone, applied]);
      expect((await getSkill()).status).toBe(404);
      expect((await getSkill('payroll-reconciliation')).status).toBe(200);
      expect(await listed()).toEqual(expect.arrayContaining(['payroll-reconciliation']));
      expect(await listed()).not.toContain('reconcile-payroll');

      const unlinked = removed('payroll-reconciliation');
      await unlink(renamed);
      await unlinked;
      expect(await search('payroll reconciliation')).not.toContain('payroll-reconciliation');
      expect(await listed()).not.toContain('payroll-reconciliation');
    } finally {
      await t.close();
    }
  });
});
