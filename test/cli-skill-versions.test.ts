/**
 * `org skills versions`, `org skills show --version [--diff|--raw]` and `org skills
 * restore-version` against a real listening server on a git repository home: the
 * listing, a version rendered and as a unified diff against the current file, and a
 * restore that reads the current ETag first (a change in between is refused, not lost).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillsShow } from '../src/cli/commands/skills.js';
import { runSkillsRestoreVersion, runSkillsShowVersion, runSkillsVersions } from '../src/cli/commands/skills-versions.js';
import { capture, depsFor } from './cli-helpers.js';
import { GIT_MISSING, initRepo } from './helpers/git.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

describe.skipIf(GIT_MISSING !== undefined)('skill version commands', () => {
  let t: TestInstance;
  let token: string;
  let structureId: string;
  let chunks: string[] = [];
  const out = capture();
  const as = () => depsFor(t, token, out, { write: (chunk: string) => void chunks.push(chunk) });
  const write = (summary: string) =>
    t.server.inject({
      method: 'POST',
      url: '/api/org/knowledge/skills',
      headers: t.auth(token),
      payload: { structure_id: structureId, slug: 'close-books', frontmatter: { type: 'skill', name: 'Close the books', status: 'complete', summary }, body: `## [close] Step 1: Close\n\n${summary}\n` },
    });

  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { commit: true } });
    await initRepo(t.home);
    token = (await t.createUser('cfo@example.com')).token;
    structureId = (await t.createStructure(token, 'blank')).id;
    await write('Reconcile every account.');
    await write('Reconcile the bank accounts only.');
  });
  afterAll(() => t?.close());

  it('lists versions, shows one rendered, raw and as a diff against the current file, and restores it', async () => {
    expect(await runSkillsVersions({ slug: 'close-books' }, as())).toBe(0);
    expect(out.out[0]).toMatch(/^VERSION +DATE +WHAT$/);
    expect(out.out[1]).toMatch(/^[0-9a-f]{12} .*skill close-books: update by cfo@example\.com/);
    expect(out.out[2]).toMatch(/^[0-9a-f]{12} .*skill close-books: create by cfo@example\.com/);
    const first = out.out[2]!.slice(0, 12);
    out.clear();

    expect(await runSkillsShowVersion({ slug: 'close-books', version: first }, as())).toBe(0);
    expect(out.text()).toContain(`close-books at ${first}`);
    expect(out.text()).toContain('Reconcile every account.');
    out.clear();
    chunks = [];
    expect(await runSkillsShowVersion({ slug: 'close-books', version: first, raw: true }, as())).toBe(0);
    expect(chunks.join('')).toMatch(/^---\n[\s\S]*summary: Reconcile every account\.\n[\s\S]*---\n/);
    chunks = [];
    expect(await runSkillsShowVersion({ slug: 'close-books', version: first, diff: true }, as())).toBe(0);
    const patch = chunks.join('');
    expect(patch).toContain(`--- close-books.md@${first}`);
    expect(patch).toContain('+++ close-books.md (current)');
    expect(patch).toContain('-summary: Reconcile every account.');
    expect(patch).toContain('+summary: Reconcile the bank accounts only.');
    await expect(runSkillsShow({ slug: 'close-books', diff: true }, as())).rejects.toThrow(/--diff compares a version/);

    out.clear();
    expect(await runSkillsRestoreVersion({ slug: 'close-books', version: first }, as())).toBe(0);
    expect(out.text()).toContain(`restored close-books to version ${first}`);
    expect(await readFile(join(t.home, 'skills', structureId, 'close-books.md'), 'utf8')).toContain('summary: Reconcile every account.');
    out.clear();
    expect(await runSkillsVersions({ slug: 'close-books' }, as())).toBe(0);
    expect(out.out[1]).toContain(`skill close-books: restore version ${first} by cfo@example.com`);
  });
});
