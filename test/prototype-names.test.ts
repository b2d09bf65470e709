/**
 * Names chosen by users never become keys of plain objects (issue 10, item 4): artifact
 * and attachment names that are `Object.prototype` members work like any other name:
 * unknown ones are 404 (not 500), stored ones are listed, downloaded and still there
 * after a restart (an attachment named `__proto__` used to vanish). Front-matter members
 * with such names round-trip too.
 */
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsArtifactShelf } from '../src/core/chat/artifacts.js';
import { expectProblem } from './helpers/problem.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

describe('names that are Object.prototype members', () => {
  let home: string;
  let t: TestInstance;
  let structureId: string;

  const url = (name?: string) => `/api/org/structures/${structureId}/agents/team-a/artifacts${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-names-'));
    t = await startInstance({ home });
    structureId = (await t.createStructure(t.auth().authorization.slice(7), 'blank')).id;
    await t.app.nodes.add(structureId, { role_id: 'team-a', label: 'A' }, 'test');
  });
  afterAll(async () => {
    await t.close();
    await rm(home, { recursive: true, force: true });
  });

  it('unknown artifacts with those names are 404 problems, never 500', async () => {
    for (const name of NAMES) expectProblem(await t.server.inject({ method: 'GET', url: url(name), headers: t.auth() }), 404, 'not_found');
  });

  it('attachments with those names are stored, listed, downloaded, and survive a restart', async () => {
    const response = await t.server.inject({
      method: 'POST',
      url: '/api/org/chat/message/sync',
      headers: t.auth(),
      payload: {
        structure_id: structureId,
        role_id: 'team-a',
        message: 'files',
        attachments: NAMES.map((name) => ({ name, content_base64: Buffer.from(`content of ${name}`).toString('base64'), content_type: 'text/plain' })),
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const listed = async (instance: TestInstance) =>
      (await instance.server.inject({ method: 'GET', url: url(), headers: instance.auth() })).json<{ artifacts: { name: string }[] }>().artifacts.map((a) => a.name);
    expect((await listed(t)).filter((name) => NAMES.includes(name)).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) {
      const download = await t.server.inject({ method: 'GET', url: url(name), headers: t.auth() });
      expect(download.statusCode, `${name}: ${download.body}`).toBe(200);
      expect(download.body).toBe(`content of ${name}`);
    }
    const history = (await t.server.inject({ method: 'GET', url: `/api/org/chat/history?structure_id=${structureId}&role_id=team-a`, headers: t.auth() })).json<
      { sender: string; attachments: { name: string }[] }[]
    >();
    expect(history.find((message) => message.sender === 'user')?.attachments.map((a) => a.name)).toEqual(NAMES);

    await t.close();
    t = await startInstance({ home });
    expect((await listed(t)).filter((name) => NAMES.includes(name)).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) expect((await t.server.inject({ method: 'GET', url: url(name), headers: t.auth() })).body).toBe(`content of ${name}`);
  });

  it('a shelf written by an earlier version (a name-keyed object) is read as a list', async () => {
    const nodeDir = join(home, 'legacy-node');
    await mkdir(join(nodeDir, 'artifacts'), { recursive: true });
    await writeFile(join(nodeDir, 'artifacts', 'report.md'), 'old report');
    const info = { name: 'report.md', size: 10, content_type: 'text/markdown', created_at: '2026-01-01T00:00:00.000Z' };
    await writeFile(join(nodeDir, 'artifacts.json'), JSON.stringify({ version: 1, artifacts: { 'report.md': info } }));
    const shelf = new FsArtifactShelf(nodeDir);
    expect(await shelf.list()).toEqual([info]);
    await shelf.write('toString', 'x', 'text/plain');
    expect((await shelf.list()).map((a) => a.name).sort()).toEqual(['report.md', 'toString']);
    const stored = JSON.parse(await readFile(join(nodeDir, 'artifacts.json'), 'utf8')) as { version: number; artifacts: unknown };
    expect(stored.version).toBe(2);
    expect(Array.isArray(stored.artifacts)).toBe(true);
  });

  it('front-matter members with those names round-trip as ordinary members', async () => {
    const frontmatter: Record<string, unknown> = { type: 'skill', name: 'Proto names', status: 'complete', summary: 'x', constructor: 'c', toString: 't', hasOwnProperty: 'h', valueOf: 'v' };
    const post = await t.server.inject({
      method: 'POST',
      url: '/api/org/knowledge/skills',
      headers: t.auth(),
      payload: { structure_id: structureId, slug: 'proto-names', frontmatter, body: 'Body.\n' },
    });
    expect(post.statusCode, post.body).toBe(201);
    const got = (await t.server.inject({ method: 'GET', url: '/api/org/knowledge/skills/proto-names', headers: t.auth() })).json<{ frontmatter: Record<string, unknown> }>();
    expect(got.frontmatter).toMatchObject({ constructor: 'c', toString: 't', hasOwnProperty: 'h', valueOf: 'v' });
  });

  it('a skill file with a top-level __proto__ member is a problem, not a skill that silently lost it', async () => {
    const seen = new Promise<void>((resolve) => {
      const stop = t.app.skills.subscribe((event) => {
        if (event.type === 'problem' && event.file === 'proto-file.md') {
          stop();
          resolve();
        }
      });
    });
    await writeFile(join(home, 'skills', 'proto-file.md'), '---\ntype: skill\nname: Proto\nstatus: complete\n__proto__:\n  polluted: true\n---\nBody\n');
    await seen;
    const problems = (await t.server.inject({ method: 'GET', url: '/api/org/knowledge/problems', headers: t.auth() })).json<{ problems: { file: string; line?: number; message: string }[] }>();
    expect(problems.problems).toContainEqual({ file: 'proto-file.md', line: 5, message: '__proto__ is not allowed as a member name' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
