/**
 * Skill versions over HTTP on real git repositories and real homes: the list (git
 * commits, and the copies updates kept when git does not hold them), one version beside
 * the current file, and restore as the next version through the normal write path with
 * If-Match (stale → 412, nothing written), audited. Version ids are validated before
 * anything runs; viewers read but do not restore; nothing of another structure is listed
 * or read by any path, not even through a commit of the root from before structure folders.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, initRepo, requireGit } from './helpers/git.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const BODY = '## [one] Step 1: Do it\n\nThe steps.\n';
const fm = (summary: string, extra: Record<string, unknown> = {}) => ({ type: 'skill', name: 'Chase invoices', category: 'finance', difficulty: 'low', tags: ['ar'], status: 'complete', summary, ...extra });

interface Version {
  id: string;
  source: 'git' | 'kept';
  date: string;
  author: string | null;
  message: string | null;
}

/** Calls of one test instance. */
function calls(t: TestInstance) {
  const write = (token: string | undefined, structureId: string | undefined, slug: string, summary: string) =>
    t.server.inject({ method: 'POST', url: '/api/org/knowledge/skills', headers: t.auth(token), payload: { ...(structureId ? { structure_id: structureId } : {}), slug, frontmatter: fm(summary), body: BODY } });
  const query = (structureId?: string) => (structureId ? `?structure_id=${structureId}` : '');
  return {
    write,
    versions: (token: string | undefined, slug: string, structureId?: string) => t.server.inject({ method: 'GET', url: `/api/org/knowledge/skills/${slug}/versions${query(structureId)}`, headers: t.auth(token) }),
    version: (token: string | undefined, slug: string, id: string, structureId?: string) =>
      t.server.inject({ method: 'GET', url: `/api/org/knowledge/skills/${slug}/versions/${id}${query(structureId)}`, headers: t.auth(token) }),
    restore: (token: string | undefined, slug: string, id: string, structureId: string | undefined, ifMatch?: string) =>
      t.server.inject({
        method: 'POST',
        url: `/api/org/knowledge/skills/${slug}/versions/${id}/restore${query(structureId)}`,
        headers: { ...t.auth(token), ...(ifMatch ? { 'if-match': ifMatch } : {}) },
      }),
    etag: async (token: string | undefined, slug: string, structureId?: string) =>
      (await t.server.inject({ method: 'GET', url: `/api/org/knowledge/skills/${slug}${query(structureId)}`, headers: t.auth(token) })).headers.etag as string,
  };
}

describe('skill versions', () => {
  it('lists the commits of a skill, shows one beside the current file, and restores it as the next version with If-Match (audited)', async (context) => {
    requireGit(context);
    const t = await startInstance({ config: { commit: true } });
    try {
      await initRepo(t.home);
      const api = calls(t);
      const owner = await t.createUser('owner@example.com');
      const sid = (await t.createStructure(owner.token, 'blank')).id;
      for (const summary of ['First text.', 'Second text.', 'Third text.']) expect((await api.write(owner.token, sid, 'chase', summary)).statusCode).toBeLessThan(300);

      const listed = (await api.versions(owner.token, 'chase', sid)).json<{ git: boolean; versions: Version[] }>();
      expect(listed.git).toBe(true);
      // The copies each update kept are committed with it: git holds them, so they are not listed twice.
      expect(listed.versions.map((version) => [version.source, version.message])).toEqual([
        ['git', 'skill chase: update by owner@example.com'],
        ['git', 'skill chase: update by owner@example.com'],
        ['git', 'skill chase: create by owner@example.com'],
      ]);
      const first = listed.versions[2]!;
      expect(first.id).toMatch(/^[0-9a-f]{40}$/);

      // A version by a short prefix of its commit: its file, parsed, and the current file with the ETag GET gives.
      const viewed = await api.version(owner.token, 'chase', first.id.slice(0, 8).toUpperCase(), sid);
      expect(viewed.statusCode).toBe(200);
      const body = viewed.json<{ version: Version; text: string; skill: { frontmatter: { summary: string } }; current: { text: string; etag: string } }>();
      expect(body.version).toEqual(first);
      expect(body.text).toContain('summary: First text.');
      expect(body.skill.frontmatter.summary).toBe('First text.');
      expect(body.current.text).toBe(await readFile(join(t.home, 'skills', sid, 'chase.md'), 'utf8'));
      expect(body.current.text).toContain('summary: Third text.');
      const etag = await api.etag(owner.token, 'chase', sid);
      expect(body.current.etag).toBe(etag);

      // Restoring needs If-Match; a stale one writes nothing.
      const file = join(t.home, 'skills', sid, 'chase.md');
      const missing = await api.restore(owner.token, 'chase', first.id, sid);
      expect(missing.statusCode).toBe(400);
      expect(missing.json().detail).toMatch(/If-Match is required/);
      expect((await api.write(owner.token, sid, 'chase', 'Fourth text.')).statusCode).toBe(200);
      const stale = await api.restore(owner.token, 'chase', first.id, sid, etag);
      expect(stale.statusCode).toBe(412);
      expect(await readFile(file, 'utf8')).toContain('summary: Fourth text.');

      const restored = await api.restore(owner.token, 'chase', first.id, sid, await api.etag(owner.token, 'chase', sid));
      expect(restored.statusCode).toBe(200);
      expect(restored.json().frontmatter.summary).toBe('First text.');
      expect(restored.headers.etag).toBe(await api.etag(owner.token, 'chase', sid));
      expect(await readFile(file, 'utf8')).toContain('summary: First text.');
      const after = (await api.versions(owner.token, 'chase', sid)).json<{ versions: Version[] }>().versions;
      expect(after).toHaveLength(5);
      expect(after[0]!.message).toBe(`skill chase: restore version ${first.id.slice(0, 12)} by owner@example.com`);
      // The replaced text is kept as after any update, and the audit names the action.
      expect(await readFile(join(t.home, 'skills', sid, 'chase.md'), 'utf8')).not.toContain('Fourth');
      const audit = (await t.server.inject({ method: 'GET', url: `/api/org/structures/${sid}/audit?action=skill.restore_version`, headers: t.auth(owner.token) })).json<{ entries: { target: unknown; status: number; actor: { email: string } }[] }>();
      expect(audit.entries).toEqual([expect.objectContaining({ target: { type: 'skill', id: 'chase' }, status: 200, actor: expect.objectContaining({ email: 'owner@example.com' }) })]);
      // The history route lists the same commits.
      const history = (await t.server.inject({ method: 'GET', url: `/api/org/knowledge/skills/chase/history?structure_id=${sid}`, headers: t.auth(owner.token) })).json<{ commits: { commit: string }[] }>();
      expect(history.commits.map((commit) => commit.commit)).toEqual(after.map((version) => version.id));
    } finally {
      await t.close();
    }
  });

  it('without git, lists the copies updates kept, and views and restores them the same way', async () => {
    const t = await startInstance();
    try {
      const api = calls(t);
      const owner = await t.createUser('owner@example.com');
      const sid = (await t.createStructure(owner.token, 'blank')).id;
      for (const summary of ['First text.', 'Second text.', 'Third text.']) await api.write(owner.token, sid, 'chase', summary);
      const listed = (await api.versions(owner.token, 'chase', sid)).json<{ git: boolean; versions: Version[] }>();
      expect(listed.git).toBe(false);
      expect(listed.versions.map((version) => version.source)).toEqual(['kept', 'kept']);
      expect(listed.versions[0]!.id).toMatch(/^kept-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z(-\d+)?$/);
      const oldest = listed.versions[1]!;
      const viewed = (await api.version(owner.token, 'chase', oldest.id, sid)).json<{ skill: { frontmatter: { summary: string } }; current: { text: string } }>();
      expect(viewed.skill.frontmatter.summary).toBe('First text.');
      expect(viewed.current.text).toContain('Third text.');
      const restored = await api.restore(owner.token, 'chase', oldest.id, sid, await api.etag(owner.token, 'chase', sid));
      expect(restored.statusCode).toBe(200);
      expect(await readFile(join(t.home, 'skills', sid, 'chase.md'), 'utf8')).toContain('summary: First text.');
      // The text the restore replaced is a version now.
      const after = (await api.versions(owner.token, 'chase', sid)).json<{ versions: Version[] }>().versions;
      expect(after).toHaveLength(3);
      expect((await api.version(owner.token, 'chase', after[0]!.id, sid)).json<{ text: string }>().text).toContain('Third text.');
    } finally {
      await t.close();
    }
  });

  it('lets a viewer view but not restore; a structure cannot restore an instance skill, the administrator can', async () => {
    const t = await startInstance();
    try {
      const api = calls(t);
      const owner = await t.createUser('owner@example.com');
      const viewer = await t.createUser('viewer@example.com');
      const sid = (await t.createStructure(owner.token, 'blank')).id;
      await t.app.members.set(sid, viewer.id, 'viewer');
      await api.write(owner.token, sid, 'chase', 'First text.');
      await api.write(owner.token, sid, 'chase', 'Second text.');
      const [kept] = (await api.versions(viewer.token, 'chase', sid)).json<{ versions: Version[] }>().versions;
      expect((await api.version(viewer.token, 'chase', kept!.id, sid)).statusCode).toBe(200);
      const refused = await api.restore(viewer.token, 'chase', kept!.id, sid, await api.etag(viewer.token, 'chase', sid));
      expect(refused.statusCode).toBe(403);
      expect(await readFile(join(t.home, 'skills', sid, 'chase.md'), 'utf8')).toContain('Second text.');

      // An instance skill: its versions are readable by members; only the administrator restores one.
      expect((await api.write(undefined, undefined, 'shared-playbook', 'First shared.')).statusCode).toBe(201);
      await api.write(undefined, undefined, 'shared-playbook', 'Second shared.');
      const [shared] = (await api.versions(owner.token, 'shared-playbook', sid)).json<{ versions: Version[] }>().versions;
      const etag = await api.etag(owner.token, 'shared-playbook', sid);
      const fromStructure = await api.restore(owner.token, 'shared-playbook', shared!.id, sid, etag);
      expect(fromStructure.statusCode).toBe(403);
      expect(fromStructure.json().code).toBe('instance_skill');
      // Naming no structure is for the administrator only: a member must name the structure it acts for.
      expect((await api.restore(owner.token, 'shared-playbook', shared!.id, undefined, etag)).statusCode).toBe(400);
      const byAdmin = await api.restore(undefined, 'shared-playbook', shared!.id, undefined, etag);
      expect(byAdmin.statusCode).toBe(200);
      expect(byAdmin.json().frontmatter.summary).toBe('First shared.');
    } finally {
      await t.close();
    }
  });

  it('validates version ids before anything runs: not hex, too short or long, option-like, unknown', async (context) => {
    requireGit(context);
    const t = await startInstance({ config: { commit: true } });
    try {
      await initRepo(t.home);
      const api = calls(t);
      const owner = await t.createUser('owner@example.com');
      const sid = (await t.createStructure(owner.token, 'blank')).id;
      await api.write(owner.token, sid, 'chase', 'First text.');
      await api.write(owner.token, sid, 'other', 'Another skill.');
      const otherCommit = (await api.versions(owner.token, 'other', sid)).json<{ versions: Version[] }>().versions[0]!.id;
      for (const id of ['HEAD', 'main', '--output=x', '-n1', 'abc12', 'g123456', `${'a'.repeat(41)}`, 'kept-yesterday', '..%2F..%2Fetc']) {
        const answer = await api.version(owner.token, 'chase', id, sid);
        expect([id, answer.statusCode]).toEqual([id, 400]);
        expect(answer.headers['content-type']).toMatch(/problem\+json/);
      }
      // A well-formed id that is not a version of this skill (another skill's commit, nothing at all).
      for (const id of [otherCommit, 'deadbeef00', 'kept-2020-01-01T00-00-00.000Z']) expect((await api.version(owner.token, 'chase', id, sid)).statusCode).toBe(404);
      expect((await api.restore(owner.token, 'chase', otherCommit, sid, await api.etag(owner.token, 'chase', sid))).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe('skill versions of another structure are never visible', () => {
  it('by path, by commit id, or by a commit from before structure folders when the file lay in the root', async (context) => {
    requireGit(context);
    const home = await mkdtemp(join(tmpdir(), 'org-versions-'));
    const other = '0b6f1a52-1111-4222-8333-444455556667';
    // Before structure folders, another structure's skill lay in the root as foo.md; it was moved into its folder since.
    await initRepo(home);
    await mkdir(join(home, 'skills', other), { recursive: true });
    await writeFile(join(home, 'skills', 'foo.md'), `---\ntype: skill\nname: Their secret\nstatus: complete\nsummary: The other structure's secret text.\nstructure_id: ${other}\n---\n\n${BODY}`);
    await git(home, 'add', '.');
    await git(home, 'commit', '-q', '-m', 'their skill in the root');
    await git(home, 'mv', 'skills/foo.md', `skills/${other}/foo.md`);
    await git(home, 'commit', '-q', '-m', 'moved into its folder');
    const t = await startInstance({ home, config: { commit: true } });
    try {
      const api = calls(t);
      const owner = await t.createUser('owner@example.com');
      const a = (await t.createStructure(owner.token, 'blank')).id;
      const b = (await t.createStructure(owner.token, 'blank')).id;
      // The administrator now writes an instance skill at the same path, foo.md.
      expect((await api.write(undefined, undefined, 'foo', 'Shared text.')).statusCode).toBe(201);
      const rootCommits = (await git(home, 'log', '--format=%H', '--', 'skills/foo.md')).trim().split('\n');
      expect(rootCommits).toHaveLength(3);
      const theirs = rootCommits[2]!;
      for (const token of [owner.token, undefined]) {
        const listed = (await api.versions(token, 'foo', token ? a : undefined)).json<{ versions: Version[] }>().versions;
        expect(listed.map((version) => version.message)).toEqual(['skill foo: create by admin']);
        expect((await api.version(token, 'foo', theirs, token ? a : undefined)).statusCode).toBe(404);
        const history = (await t.server.inject({ method: 'GET', url: `/api/org/knowledge/skills/foo/history${token ? `?structure_id=${a}` : ''}`, headers: t.auth(token) })).json<{ commits: { commit: string }[] }>();
        expect(history.commits.map((commit) => commit.commit)).not.toContain(theirs);
      }
      expect((await api.restore(undefined, 'foo', theirs, undefined, await api.etag(undefined, 'foo'))).statusCode).toBe(404);

      // Two structures with a skill of the same slug: neither reaches the other's commits.
      await api.write(owner.token, a, 'same', 'A text.');
      await api.write(owner.token, b, 'same', 'B text.');
      const ofA = (await api.versions(owner.token, 'same', a)).json<{ versions: Version[] }>().versions;
      const ofB = (await api.versions(owner.token, 'same', b)).json<{ versions: Version[] }>().versions;
      expect(ofA).toHaveLength(1);
      expect(ofB).toHaveLength(1);
      expect((await api.version(owner.token, 'same', ofB[0]!.id, a)).statusCode).toBe(404);
      expect((await api.restore(owner.token, 'same', ofB[0]!.id, a, await api.etag(owner.token, 'same', a))).statusCode).toBe(404);
      // A non-member of b learns nothing of b's skill.
      const stranger = await t.createUser('stranger@example.com');
      expect((await api.versions(stranger.token, 'same', b)).statusCode).toBe(404);
      expect((await api.version(stranger.token, 'same', ofB[0]!.id, b)).statusCode).toBe(404);
    } finally {
      await t.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});
