/**
 * Symbolic links in the home are never followed (issue 10, item 2). `skills/` is
 * tracked in git, so a committed link is an attack: each test plants real links in a
 * temp home, pointing at files and folders outside it, and checks that the server
 * neither reads, serves, overwrites nor moves anything through them, refusing with a
 * clear 409 problem (or reporting the file as a load problem) instead.
 */
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { resolveConfig } from '../src/core/config.js';
import type { SkillChangeEvent } from '../src/core/skills/index.js';
import { expectProblem } from './helpers/problem.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const SECRET_SKILL = ['---', 'type: skill', 'name: Outside secret', 'status: complete', 'summary: zanzibar secret outside the home', '---', 'The secret zanzibar body.', ''].join('\n');

function frontmatter(name = 'Chase an overdue invoice') {
  return { type: 'skill', name, category: 'finance', difficulty: 'low', tags: [], status: 'complete', summary: 'Collect money owed.' };
}

/** Everything under `dir` with its content, to show nothing outside the home changed. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const file = join(entry.parentPath, entry.name);
    out[file.slice(dir.length)] = entry.isFile() ? await readFile(file, 'utf8') : entry.isDirectory() ? '<dir>' : '<other>';
  }
  return out;
}

describe('symbolic links in the home are never followed', () => {
  let base: string;
  let home: string;
  let outside: string;
  let t: TestInstance | undefined;
  let structureId: string;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'org-links-'));
    home = join(base, 'home');
    outside = join(base, 'outside');
    await mkdir(join(home, 'skills'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(outside, 'secret.md'), SECRET_SKILL);
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    await rm(base, { recursive: true, force: true });
  });

  async function start(): Promise<TestInstance> {
    t = await startInstance({ home });
    structureId = (await t.createStructure(t.auth().authorization.slice(7), 'blank')).id;
    return t;
  }
  const skillsUrl = () => `/api/org/knowledge/skills?structure_id=${structureId}`;

  it('a linked skill file found at start is a problem, not a skill: not listed, not served, not searchable', async () => {
    await symlink(join(outside, 'secret.md'), join(home, 'skills', 'secret.md'));
    await symlink('../../outside/secret.md', join(home, 'skills', 'relative.md'));
    const s = await start();
    const list = await s.server.inject({ method: 'GET', url: skillsUrl(), headers: s.auth() });
    expect(list.json<{ skills: unknown[] }>().skills).toEqual([]);
    for (const slug of ['secret', 'relative']) {
      expectProblem(await s.server.inject({ method: 'GET', url: `/api/org/knowledge/skills/${slug}`, headers: s.auth() }), 404, 'not_found');
    }
    const problems = (await s.server.inject({ method: 'GET', url: '/api/org/knowledge/problems', headers: s.auth() })).json<{ problems: { file: string; message: string }[] }>();
    expect(problems.problems).toEqual([
      { file: 'relative.md', message: expect.stringContaining('symbolic link') },
      { file: 'secret.md', message: expect.stringContaining('symbolic link') },
    ]);
    const search = await s.server.inject({ method: 'POST', url: '/api/org/knowledge/search', headers: s.auth(), payload: { structure_id: structureId, query: 'zanzibar secret', limit: 5 } });
    expect(search.json()).toEqual({ matches: [] });
  });

  it('a link added while running is reported by the watcher as a problem, never loaded', async () => {
    const s = await start();
    const seen = new Promise<SkillChangeEvent>((resolve) => {
      const stop = s.app.skills.subscribe((event) => {
        if (event.type === 'problem' && event.file === 'late.md') {
          stop();
          resolve(event);
        }
      });
    });
    await symlink(join(outside, 'secret.md'), join(home, 'skills', 'late.md'));
    expect(await seen).toMatchObject({ type: 'problem', message: expect.stringContaining('symbolic link') });
    expect(s.app.skills.list().map((entry) => entry.slug)).toEqual([]);
    expectProblem(await s.server.inject({ method: 'GET', url: '/api/org/knowledge/skills/late', headers: s.auth() }), 404, 'not_found');
  });

  it('POST and DELETE for a slug whose file is a link: 409, nothing written or moved through it', async () => {
    await symlink(join(outside, 'secret.md'), join(home, 'skills', 'secret.md'));
    const s = await start();
    const before = await tree(outside);
    const post = await s.server.inject({
      method: 'POST',
      url: '/api/org/knowledge/skills',
      headers: s.auth(),
      // The administrator writing the instance library (no structure_id).
      payload: { slug: 'secret', frontmatter: frontmatter('Overwritten'), body: 'pwned' },
    });
    const problem = expectProblem(post, 409, 'conflict');
    expect(problem.detail).toBe('skills/secret.md is a symbolic link; org never writes through links: replace it with a regular file');
    const del = await s.server.inject({ method: 'DELETE', url: '/api/org/knowledge/skills/secret', headers: s.auth() });
    expectProblem(del, 409, 'conflict');
    expect(await tree(outside)).toEqual(before);
    expect((await lstat(join(home, 'skills', 'secret.md'))).isSymbolicLink()).toBe(true);
    expect(await readdir(join(home, 'skills'))).toEqual(['secret.md']);
  });

  it('a linked skills/.deleted: deleting a skill is refused and the skill stays in the home; listed as a problem', async () => {
    await mkdir(join(outside, 'trash'));
    await symlink(join(outside, 'trash'), join(home, 'skills', '.deleted'));
    const s = await start();
    const created = await s.server.inject({
      method: 'POST',
      url: '/api/org/knowledge/skills',
      headers: s.auth(),
      payload: { slug: 'chase-invoices', frontmatter: frontmatter(), body: 'Body.\n' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const del = await s.server.inject({ method: 'DELETE', url: '/api/org/knowledge/skills/chase-invoices', headers: s.auth() });
    const problem = expectProblem(del, 409, 'conflict');
    expect(problem.detail).toContain('skills/.deleted is a symbolic link');
    expect(await readdir(join(outside, 'trash'))).toEqual([]);
    expect(await readFile(join(home, 'skills', 'chase-invoices.md'), 'utf8')).toContain('Chase an overdue invoice');
    expect(s.app.skills.list({ structureId }).map((entry) => entry.slug)).toEqual(['chase-invoices']);
    expectProblem(await s.server.inject({ method: 'GET', url: `/api/org/knowledge/deleted?structure_id=${structureId}`, headers: s.auth() }), 409, 'conflict');
    expectProblem(await s.server.inject({ method: 'POST', url: '/api/org/knowledge/skills/chase-invoices/restore', headers: s.auth() }), 409, 'conflict');
    const problems = (await s.server.inject({ method: 'GET', url: '/api/org/knowledge/problems', headers: s.auth() })).json<{ problems: { file: string }[] }>();
    expect(problems.problems.map((entry) => entry.file)).toEqual(['.deleted']);
  });

  it('a link inside skills/.deleted is neither listed nor restored', async () => {
    await mkdir(join(home, 'skills', '.deleted'));
    await symlink(join(outside, 'secret.md'), join(home, 'skills', '.deleted', 'secret--2026-01-01T00-00-00.000Z.md'));
    const s = await start();
    const deleted = await s.server.inject({ method: 'GET', url: `/api/org/knowledge/deleted?structure_id=${structureId}`, headers: s.auth() });
    expect(deleted.json()).toEqual({ skills: [] });
    const restore = await s.server.inject({ method: 'POST', url: '/api/org/knowledge/skills/secret/restore', headers: s.auth() });
    expectProblem(restore, 404, 'not_found');
    expect(await readdir(join(home, 'skills'))).toEqual(['.deleted']);
  });

  it('artifacts: a linked shelf file is not served, a linked shelf folder is not written to', async () => {
    const s = await start();
    await s.app.nodes.add(structureId, { role_id: 'team-a', label: 'A' }, 'test');
    const node = s.app.nodes.get(structureId, 'team-a');
    const send = (name: string) =>
      s.server.inject({
        method: 'POST',
        url: '/api/org/chat/message/sync',
        headers: s.auth(),
        payload: { structure_id: structureId, role_id: 'team-a', message: 'hi', attachments: [{ name, content_base64: Buffer.from('mine').toString('base64'), content_type: 'text/plain' }] },
      });
    expect((await send('notes.txt')).statusCode).toBe(200);
    const shelf = join(s.app.nodes.dir(structureId, node.id), 'artifacts');
    await rm(join(shelf, 'notes.txt'));
    await symlink(join(outside, 'secret.md'), join(shelf, 'notes.txt'));
    const download = await s.server.inject({ method: 'GET', url: `/api/org/structures/${structureId}/agents/team-a/artifacts/notes.txt`, headers: s.auth() });
    expectProblem(download, 409, 'conflict');
    expect(download.body).not.toContain('zanzibar');

    await rm(shelf, { recursive: true });
    await mkdir(join(outside, 'shelf'));
    await symlink(join(outside, 'shelf'), shelf);
    const refused = await send('drop.txt');
    expectProblem(refused, 409, 'conflict');
    expect(await readdir(join(outside, 'shelf'))).toEqual([]);
  });

  it('state files: a linked users.json stops the start with a clear error; a linked outbox gets no mail', async () => {
    await mkdir(join(home, '.org'), { recursive: true });
    await writeFile(join(outside, 'users.json'), '{"version":1,"users":[]}\n');
    await symlink(join(outside, 'users.json'), join(home, '.org', 'users.json'));
    const config = resolveConfig({ home, port: 0, demo: false }, { ORG_ADMIN_TOKEN: 'test-admin-token-0123456789abcdef', ORG_CONFIG_DIR: join(home, 'config') });
    await expect(createApp(config, { log: () => undefined })).rejects.toThrow('.org/users.json is a symbolic link');
    await rm(join(home, '.org', 'users.json'));

    await mkdir(join(outside, 'outbox'));
    await rm(join(home, '.org', 'outbox'), { recursive: true, force: true });
    await symlink(join(outside, 'outbox'), join(home, '.org', 'outbox'));
    await expect(createApp(config, { log: () => undefined })).rejects.toThrow('.org/outbox is a symbolic link');
    expect(await readdir(join(outside, 'outbox'))).toEqual([]);
  });

  it('the index folder: a linked .org/index is never written to', async () => {
    await mkdir(join(home, '.org'), { recursive: true });
    await mkdir(join(outside, 'index'));
    await symlink(join(outside, 'index'), join(home, '.org', 'index'));
    await writeFile(join(home, 'skills', 'chase.md'), SECRET_SKILL);
    const logged: string[] = [];
    const config = resolveConfig({ home, port: 0, demo: false }, { ORG_ADMIN_TOKEN: 'test-admin-token-0123456789abcdef', ORG_CONFIG_DIR: join(home, 'config') });
    const app = await createApp(config, { log: (level, message, fields) => logged.push(`${level} ${message} ${JSON.stringify(fields)}`) });
    try {
      await app.skills.ready();
      // The start-up index save comes after ready; settling waits for it (and its refusal).
      await app.skills.settle();
      expect(app.skills.list().map((entry) => entry.slug)).toEqual(['chase']);
      expect(logged.some((line) => line.startsWith('error saving the skill index failed') && line.includes('.org/index is a symbolic link'))).toBe(true);
      expect(await readdir(join(outside, 'index'))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
