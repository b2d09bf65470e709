/**
 * Skills through a git remote, on a real `org serve` process (issue 14, item 7): a person
 * pushes a commit touching another file to the bare remote from outside org; the
 * instance has not fetched it (its periodic fetch is an hour away), so its next API write
 * is pushed onto a remote that moved and is rejected. The instance fetches, rebases its
 * commit onto the person's and pushes again: the write answers success, the remote holds
 * both commits in one line of history, and the instance's clone has the person's file too.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startServe, type ServeChild } from './helpers/child.js';
import { callJson as api } from './helpers/cluster.js';
import { git } from './helpers/git.js';
import { eventually } from './helpers/sse.js';

const frontmatter = (name: string, summary: string) => ({ type: 'skill', name, category: 'finance', difficulty: 'low', tags: ['ledger'], status: 'complete', summary, tool_url: null });

describe('a skill write pushed onto a remote that moved meanwhile', { timeout: 120_000 }, () => {
  let dir: string;
  let remote: string;
  let server: ServeChild;
  let token: string;
  let structureId: string;

  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'org-skills-rebase-'));
    remote = join(dir, 'library.git');
    await git(dir, 'init', '--bare', '--quiet', '--initial-branch=main', remote);
    const home = join(dir, 'home');
    server = await startServe({
      home,
      args: ['--no-demo'],
      // No periodic fetch during the test: the push below is found only through the rejected push.
      env: { ORG_CONFIG_DIR: join(dir, 'config'), ORG_SKILLS_REMOTE: remote, ORG_SKILLS_FETCH_MS: '3600000' },
    });
    await eventually(() => server.stdout.some((line) => line.includes('token (shown once')));
    token = /token \(shown once[^)]*\): (\S+)/.exec(server.stdout.join('\n'))?.[1] ?? '';
    expect(token).toMatch(/^org_/);
    await server.ready;
    const created = await api(server.url, 'POST', '/api/org/structures', token, { name: 'Rebase', template: 'blank' });
    expect(created.status).toBe(201);
    structureId = String(created.body.id);
  }, 120_000);

  afterAll(async () => {
    await server?.stop('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });

  it('is rebased onto the other commit and pushed again: success, both commits on the remote, the skill written', async () => {
    const first = await api(server.url, 'POST', '/api/org/knowledge/skills', token, {
      structure_id: structureId,
      slug: 'reconcile-ledger',
      frontmatter: frontmatter('Reconcile the ledger', 'Match the ledger to the bank statement.'),
      body: '## [match] Step 1: Match each line\n\nTick off every bank line.\n',
    });
    expect(first.status).toBe(201);

    // A person's editor: a commit touching another file, pushed straight to the remote.
    const person = join(dir, 'person');
    await git(dir, 'clone', '--quiet', remote, person);
    await writeFile(join(person, 'README.md'), '# The team skill library\n');
    await git(person, 'add', 'README.md');
    await git(person, '-c', 'user.email=p@example.com', '-c', 'user.name=P', 'commit', '--quiet', '-m', 'describe the library');
    await git(person, 'push', '--quiet', 'origin', 'HEAD:main');
    const theirs = (await git(remote, 'rev-parse', 'main')).trim();
    const skills = join(dir, 'home', 'skills');
    // The instance has not seen it: its push below is decided on the older tip.
    expect((await git(skills, 'rev-parse', 'HEAD')).trim()).not.toBe(theirs);

    const second = await api(server.url, 'POST', '/api/org/knowledge/skills', token, {
      structure_id: structureId,
      slug: 'close-month',
      frontmatter: frontmatter('Close the month', 'Lock the books at the end of each month.'),
      body: '## [lock] Step 1: Lock the period\n\nNo more entries for the month.\n',
    });
    expect(second.status, JSON.stringify(second.body)).toBe(201);

    // The remote: the person's commit, then the instance's write on top of it (rebased, no merge).
    const log = (await git(remote, 'log', '--format=%H %P|%s', 'main')).trim().split('\n');
    const subjects = log.map((line) => line.split('|')[1]);
    expect(subjects).toHaveLength(3);
    expect(subjects[0]).toMatch(/^skill close-month: create/);
    expect(subjects[1]).toBe('describe the library');
    expect(subjects[2]).toMatch(/^skill reconcile-ledger: create/);
    const [top] = log;
    expect(top!.split('|')[0]!.split(' ').slice(1)).toEqual([theirs]);
    expect(await git(remote, 'show', `main:${structureId}/close-month.md`)).toContain('Lock the period');
    expect(await git(remote, 'show', 'main:README.md')).toBe('# The team skill library\n');

    // The instance's clone is the remote's tip, with both files; the skill is served and searchable.
    expect((await git(skills, 'rev-parse', 'HEAD')).trim()).toBe((await git(remote, 'rev-parse', 'main')).trim());
    expect(await git(skills, 'status', '--porcelain')).toBe('');
    expect(await readFile(join(skills, 'README.md'), 'utf8')).toBe('# The team skill library\n');
    const read = await api(server.url, 'GET', `/api/org/knowledge/skills/close-month?structure_id=${structureId}`, token);
    expect(read.status).toBe(200);
    const found = await api(server.url, 'POST', '/api/org/knowledge/search', token, { query: 'close the month', structure_id: structureId });
    expect((found.body.matches as { slug: string }[]).map((match) => match.slug)).toContain('close-month');
  });
});
