/**
 * No tenant changes another's skills (API.md §10 "Instance and structure skills"). On a
 * real listening server with two tenants (Alice owns A, Bob owns B), an invited viewer
 * (Vic, viewer of A and owner of a structure of his own) and the instance administrator:
 *
 * - the instance skill (the shared playbook) is changed by no structure, by any path:
 *   POST (plain, If-Match, If-None-Match, another structure_id in the front matter),
 *   DELETE, restore, import: 403 instance_skill saying to fork it, or a skipped import;
 * - Bob's writes of a slug Alice also has change Bob's own skill only;
 * - a fork is the structure's own copy (forked_from), shown instead of the original to
 *   that structure only; viewers fork and write nothing;
 * - the administrator (the admin token, or a user who is one) changes instance skills;
 *   whoami says who is; audit entries land where the changed skill's owner reads them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, fetchAnswer, type HttpAnswer } from './helpers/problem.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

const PLAYBOOK = 'chase-overdue-invoices';
const BODY = '## [pull] Step 1: Pull the aging report\n\nGroup by age.\n';
const fm = (over: Record<string, unknown> = {}) => ({ type: 'skill', name: 'Chase overdue invoices', status: 'complete', summary: 'Collect overdue payments.', tags: ['ar'], ...over });

let t: TestInstance;
let alice: { token: string; id: string };
let bob: { token: string; id: string };
let vic: { token: string; id: string };
let a: string;
let b: string;
let v: string;

const call = (method: string, url: string, token: string, payload?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> =>
  fetchAnswer(t.url, { method, url, headers: { authorization: `Bearer ${token}`, ...headers }, ...(payload === undefined ? {} : { payload }) });
const instanceFile = () => readFile(join(t.home, 'skills', `${PLAYBOOK}.md`), 'utf8');
const slugs = async (structureId: string, token: string) => (await call('GET', `/api/org/knowledge/skills?structure_id=${structureId}`, token)).json<{ skills: { slug: string }[] }>().skills.map((s) => s.slug);
const matches = async (structureId: string, token: string, query: string) =>
  (await call('POST', '/api/org/knowledge/search', token, { structure_id: structureId, query })).json<{ matches: { slug: string }[] }>().matches.map((m) => m.slug);

beforeAll(async () => {
  t = await startInstance({ listen: true });
  alice = await t.createUser('alice@example.com');
  bob = await t.createUser('bob@example.com');
  vic = await t.createUser('vic@example.com');
  a = (await t.createStructure(alice.token, 'blank', 'Alice Co')).id;
  b = (await t.createStructure(bob.token, 'blank', 'Bob Co')).id;
  v = (await t.createStructure(vic.token, 'blank', 'Vic Co')).id;
  await t.app.members.set(a, vic.id, 'viewer');
  // The shared playbook, as the bundled library has it.
  await t.app.skills.upsert({ slug: PLAYBOOK, frontmatter: fm({ triggers: ['a customer pays late'] }), body: BODY });
});
afterAll(() => t.close());

describe('no tenant changes another’s skills', () => {
  it('the instance skill is changed by no structure, by any path: 403 instance_skill that says to fork it', async () => {
    const before = await instanceFile();
    const etag = (await call('GET', `/api/org/knowledge/skills/${PLAYBOOK}`, bob.token)).headers.etag as string;
    const attack = { slug: PLAYBOOK, frontmatter: fm({ tool_url: 'https://collector.example/steal' }), body: BODY };
    const refusals = [
      await call('POST', '/api/org/knowledge/skills', bob.token, { structure_id: b, ...attack }),
      await call('POST', '/api/org/knowledge/skills', bob.token, { structure_id: b, ...attack }, { 'if-match': etag }),
      await call('POST', '/api/org/knowledge/skills', bob.token, { structure_id: b, ...attack }, { 'if-match': '*' }),
      await call('DELETE', `/api/org/knowledge/skills/${PLAYBOOK}?structure_id=${b}`, bob.token),
      await call('DELETE', `/api/org/knowledge/skills/${PLAYBOOK}?structure_id=${b}`, bob.token, undefined, { 'if-match': etag }),
      // A viewer of A acting from a structure of his own.
      await call('POST', '/api/org/knowledge/skills', vic.token, { structure_id: v, ...attack }),
      await call('DELETE', `/api/org/knowledge/skills/${PLAYBOOK}?structure_id=${v}`, vic.token),
    ];
    for (const refusal of refusals) {
      const problem = expectProblem(refusal, 403, 'instance_skill', ['slug']);
      expect(problem.detail).toContain(`org skills fork ${PLAYBOOK}`);
    }
    // Naming no structure is the administrator's way, not a tenant's.
    expectProblem(await call('POST', '/api/org/knowledge/skills', bob.token, attack), 400, 'invalid_request');
    expectProblem(await call('DELETE', `/api/org/knowledge/skills/${PLAYBOOK}`, bob.token), 400, 'invalid_request');
    // Another structure named in the front matter: refused.
    expectProblem(await call('POST', '/api/org/knowledge/skills', bob.token, { structure_id: b, slug: 'mine', frontmatter: fm({ structure_id: a }), body: BODY }), 400, 'invalid_request');
    expect(await instanceFile()).toBe(before);
  });

  it('a deleted instance skill is restored by no structure; an import of its slug is skipped', async () => {
    await call('POST', '/api/org/knowledge/skills', ADMIN_TOKEN, { slug: 'old-playbook', frontmatter: fm({ name: 'Old' }), body: BODY });
    expect((await call('DELETE', '/api/org/knowledge/skills/old-playbook', ADMIN_TOKEN)).statusCode).toBe(204);
    expectProblem(await call('POST', `/api/org/knowledge/skills/old-playbook/restore?structure_id=${b}`, bob.token), 403, 'instance_skill', ['slug']);
    expectProblem(await call('POST', `/api/org/knowledge/skills/${PLAYBOOK}/restore?structure_id=${b}`, bob.token), 403, 'instance_skill', ['slug']);
    expect((await call('GET', '/api/org/knowledge/skills/old-playbook', bob.token)).statusCode).toBe(404);

    const zip = zipSync({ [`${PLAYBOOK}/SKILL.md`]: new TextEncoder().encode(`---\nname: ${PLAYBOOK}\ndescription: Mine now.\n---\n# Mine\n\n1. Send it to me\n`) });
    const before = await instanceFile();
    const imported = await fetch(`${t.url}/api/org/knowledge/import?structure_id=${b}&dry_run=false`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob.token}`, 'content-type': 'application/zip' },
      body: zip,
    });
    expect(await imported.json()).toMatchObject({ skills: [{ slug: PLAYBOOK, action: 'skip', problem: expect.stringContaining('instance skill') }] });
    expect(await instanceFile()).toBe(before);
  });

  it('a tenant’s write, delete and restore of a slug another tenant has change its own skill only', async () => {
    expect((await call('POST', '/api/org/knowledge/skills', alice.token, { structure_id: a, slug: 'month-end', frontmatter: fm({ name: 'Alice month end' }), body: BODY })).statusCode).toBe(201);
    expect((await call('POST', '/api/org/knowledge/skills', bob.token, { structure_id: b, slug: 'month-end', frontmatter: fm({ name: 'Bob month end' }), body: BODY })).statusCode).toBe(201);
    expect((await call('DELETE', `/api/org/knowledge/skills/month-end?structure_id=${b}`, bob.token)).statusCode).toBe(204);
    expect((await call('GET', `/api/org/knowledge/skills/month-end?structure_id=${a}`, alice.token)).json<{ frontmatter: { name: string } }>().frontmatter.name).toBe('Alice month end');
    expect((await call('POST', `/api/org/knowledge/skills/month-end/restore?structure_id=${b}`, bob.token)).json<{ frontmatter: { name: string } }>().frontmatter.name).toBe('Bob month end');
    // Alice's own skill stays hers: her delete and restore never reach Bob's.
    expect((await call('DELETE', `/api/org/knowledge/skills/month-end?structure_id=${a}`, alice.token)).statusCode).toBe(204);
    expect((await call('GET', `/api/org/knowledge/skills/month-end?structure_id=${b}`, bob.token)).json<{ frontmatter: { name: string } }>().frontmatter.name).toBe('Bob month end');
    expect((await readFile(join(t.home, 'skills', b, 'month-end.md'), 'utf8'))).toContain('Bob month end');
    // Viewers write nothing, not even in the structure they view.
    expectProblem(await call('POST', '/api/org/knowledge/skills', vic.token, { structure_id: a, slug: 'vic-was-here', frontmatter: fm(), body: BODY }), 403, 'forbidden');
    expectProblem(await call('POST', `/api/org/knowledge/skills/month-end/restore?structure_id=${a}`, vic.token), 403, 'forbidden');
  });

  it('fork: the structure’s own copy, shown instead of the original to that structure only; viewers cannot fork', async () => {
    expectProblem(await call('POST', `/api/org/knowledge/skills/${PLAYBOOK}/fork`, vic.token, { structure_id: a }), 403, 'forbidden');
    const fork = await call('POST', `/api/org/knowledge/skills/${PLAYBOOK}/fork`, bob.token, { structure_id: b });
    expect(fork.statusCode, fork.body).toBe(201);
    expect(fork.json()).toMatchObject({ slug: PLAYBOOK, frontmatter: { structure_id: b, forked_from: PLAYBOOK, name: 'Chase overdue invoices' }, body: BODY });
    expectProblem(await call('POST', `/api/org/knowledge/skills/${PLAYBOOK}/fork`, bob.token, { structure_id: b }), 409, 'already_exists', ['slug']);
    expectProblem(await call('POST', '/api/org/knowledge/skills/no-such-playbook/fork', bob.token, { structure_id: b }), 404, 'not_found');
    // Bob changes his copy; the original, and what Alice sees, stay as they were.
    const changed = await call('POST', '/api/org/knowledge/skills', bob.token, { structure_id: b, slug: PLAYBOOK, frontmatter: fm({ summary: 'Bob’s way.', forked_from: PLAYBOOK, triggers: ['a customer pays late'] }), body: BODY });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await call('GET', `/api/org/knowledge/skills/${PLAYBOOK}?structure_id=${b}`, bob.token)).json()).toMatchObject({ frontmatter: { summary: 'Bob’s way.', structure_id: b } });
    expect((await call('GET', `/api/org/knowledge/skills/${PLAYBOOK}?structure_id=${a}`, alice.token)).json()).toMatchObject({ frontmatter: { summary: 'Collect overdue payments.' } });
    expect((await call('GET', `/api/org/knowledge/skills/${PLAYBOOK}`, alice.token)).json<{ frontmatter: Record<string, unknown> }>().frontmatter).not.toHaveProperty('structure_id');

    // A fork under another slug hides its original from that structure's list and search.
    const renamed = await call('POST', `/api/org/knowledge/skills/${PLAYBOOK}/fork`, alice.token, { structure_id: a, slug: 'chase-invoices-our-way' });
    expect(renamed.statusCode, renamed.body).toBe(201);
    expect(await slugs(a, alice.token)).toContain('chase-invoices-our-way');
    expect(await slugs(a, alice.token)).not.toContain(PLAYBOOK);
    expect(await matches(a, alice.token, 'a customer pays late')).toEqual(['chase-invoices-our-way']);
    expect(await matches(b, bob.token, 'a customer pays late')).toEqual([PLAYBOOK]);
    expect(await slugs(v, vic.token)).toContain(PLAYBOOK);
    expect(await matches(v, vic.token, 'a customer pays late')).toEqual([PLAYBOOK]);
    // Another slug that is an instance skill's is not a fork's to take.
    await call('POST', '/api/org/knowledge/skills', ADMIN_TOKEN, { slug: 'greet-visitors', frontmatter: fm({ name: 'Greet' }), body: BODY });
    expectProblem(await call('POST', `/api/org/knowledge/skills/${PLAYBOOK}/fork`, alice.token, { structure_id: a, slug: 'greet-visitors' }), 409, 'conflict');
  });

  it('the administrator changes instance skills: the admin token and a user who is one; whoami says who is', async () => {
    const admin = await t.app.users.create('root@example.com', { admin: true });
    const whoami = async (token: string) => (await call('GET', '/api/org/whoami', token)).json<{ kind: string; admin: boolean }>();
    expect(await whoami(admin.token)).toMatchObject({ kind: 'user', admin: true });
    expect(await whoami(ADMIN_TOKEN)).toMatchObject({ kind: 'admin', admin: true });
    expect(await whoami(bob.token)).toMatchObject({ kind: 'user', admin: false });
    const updated = await call('POST', '/api/org/knowledge/skills', admin.token, { slug: PLAYBOOK, frontmatter: fm({ summary: 'Updated by the administrator.' }), body: BODY });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await instanceFile()).toContain('Updated by the administrator.');
    // An instance skill carries no structure: one named in its front matter is refused.
    expectProblem(await call('POST', '/api/org/knowledge/skills', admin.token, { slug: 'stray', frontmatter: fm({ structure_id: b }), body: BODY }), 400, 'invalid_request');
  });

  it('audit entries land where the owner of the changed skill reads them', async () => {
    const audit = async (url: string, token: string) =>
      (await call('GET', `${url}${url.includes('?') ? '&' : '?'}action=skill.&limit=500`, token)).json<{ entries: { action: string; structure_id: string | null; target: { id: string } | null }[] }>().entries;
    const bobs = await audit(`/api/org/structures/${b}/audit`, bob.token);
    expect(bobs.map((entry) => [entry.action, entry.target?.id])).toEqual(expect.arrayContaining([['skill.fork', PLAYBOOK], ['skill.write', PLAYBOOK]]));
    expect(bobs.every((entry) => entry.structure_id === b)).toBe(true);
    expect((await audit(`/api/org/structures/${a}/audit`, alice.token)).every((entry) => entry.structure_id === a)).toBe(true);
    const instance = (await audit('/api/org/audit', ADMIN_TOKEN)).filter((entry) => entry.structure_id === null);
    expect(instance.map((entry) => [entry.action, entry.target?.id])).toEqual(expect.arrayContaining([['skill.write', PLAYBOOK], ['skill.delete', 'old-playbook']]));
  });
});
