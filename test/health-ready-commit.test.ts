/**
 * Health over a listening server (issue 18, items 6 and 10): liveness reports skill
 * writes whose git commit failed; readiness is 200 while the index is loaded, the store
 * answers and the instance is not draining, and a 503 problem naming the failing check
 * otherwise. A commit refused by a stale `.git/index.lock` is kept, shown in
 * `/knowledge/problems`, and committed once the lock is gone.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, initRepo, requireGit } from './helpers/git.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { frontmatter } from './helpers/skills.js';

describe('health, readiness and retried skill commits', () => {
  let home: string;
  let t: TestInstance;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-health-'));
    t = await startInstance({ listen: true, home, config: { commit: true } });
  });
  afterAll(async () => {
    await t?.close();
    await rm(home, { recursive: true, force: true });
  });

  const json = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${t.url}${path}`, init);
    return { status: response.status, type: response.headers.get('content-type') ?? '', body: (await response.json()) as Record<string, unknown> };
  };
  const write = async (slug: string) =>
    json('/api/org/knowledge/skills', {
      method: 'POST',
      headers: { ...t.auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ structure_id: (await t.createStructure(t.auth().authorization.slice(7), 'blank')).id, slug, frontmatter: frontmatter({ name: `Skill ${slug}` }), body: 'Steps.' }),
    });

  it('a failed commit is a problem and a health count until a later commit carries it', async (context) => {
    requireGit(context);
    await initRepo(home);
    await writeFile(join(home, '.git', 'index.lock'), '');
    const locked = await write('locked-one');
    expect(locked.status).toBe(201);
    const structureId = (locked.body.frontmatter as { structure_id: string }).structure_id;
    const problems = (await json('/api/org/knowledge/problems', { headers: t.auth() })).body.problems as { file: string; message: string }[];
    expect(problems).toContainEqual({ file: `${structureId}/locked-one.md`, message: expect.stringContaining('index.lock') as string });
    expect(JSON.stringify(problems)).not.toContain(home);
    expect((await json('/api/org/health')).body).toMatchObject({ status: 'ok', uncommitted_skill_files: 1 });

    await rm(join(home, '.git', 'index.lock'));
    expect((await write('after-lock')).status).toBe(201);
    expect((await json('/api/org/health')).body).toMatchObject({ uncommitted_skill_files: 0 });
    expect((await json('/api/org/knowledge/problems', { headers: t.auth() })).body.problems).toEqual([]);
    const log = await git(home, 'log', '--format=%s');
    expect(log).toContain('skill locked-one: create');
    expect(log).toContain('skill after-lock: create');
    expect(log.indexOf('after-lock')).toBeLessThan(log.indexOf('locked-one'));
  });

  it('readiness is 200 with its checks, then a 503 problem once draining', async () => {
    const ready = await json('/api/org/health/ready');
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', checks: { skills_index: true, store: true, draining: false } } });
    await t.app.chat.close(0);
    const draining = await json('/api/org/health/ready');
    expect(draining.status).toBe(503);
    expect(draining.type).toMatch(/^application\/problem\+json/);
    expect(draining.body).toMatchObject({ code: 'unavailable', checks: { draining: true }, detail: expect.stringContaining('shutting down') as string });
    // Liveness stays 200 while draining.
    expect((await json('/api/org/health')).status).toBe(200);
  });
});
