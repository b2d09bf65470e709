/**
 * A home of an earlier version keeps working (API.md §10): its structures' skills, which
 * lay in the root beside the instance library carrying `structure_id`, move once at
 * start into `skills/<structure_id>/` with their own files and deleted versions (with
 * `git mv`, so `history` follows them), and its users file makes the first start's user
 * (`owner@localhost`) the instance administrator; later users are not.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, mintToken } from '../src/core/auth/index.js';
import type { LogFields, LogLevel } from '../src/core/util/log.js';
import { git, initRepo, requireGit } from './helpers/git.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const S = '0b6f1a52-1111-4222-8333-444455556666';
const skill = (name: string, extra: string[] = []) => ['---', 'type: skill', `name: ${name}`, 'status: complete', ...extra, '---', `${name} body.`, ''].join('\n');

let home: string;
const owner = mintToken('user');
const later = mintToken('user');

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'org-layout-'));
  await mkdir(join(home, 'skills', '.deleted'), { recursive: true });
  await mkdir(join(home, 'skills', 'theirs', 'scripts'), { recursive: true });
  await mkdir(join(home, 'skills', S), { recursive: true });
  await writeFile(join(home, 'skills', 'shared.md'), skill('Shared'));
  await writeFile(join(home, 'skills', 'theirs.md'), skill('Theirs', [`structure_id: ${S}`]));
  await writeFile(join(home, 'skills', 'theirs', 'scripts', 'run.sh'), 'echo run\n');
  await writeFile(join(home, 'skills', '.deleted', 'gone--2026-01-01T00-00-00.000Z.md'), skill('Gone', [`structure_id: ${S}`]));
  // A file whose place in the structure's folder is taken stays, as a problem of that structure.
  await writeFile(join(home, 'skills', 'taken.md'), skill('Old taken', [`structure_id: ${S}`]));
  await writeFile(join(home, 'skills', S, 'taken.md'), skill('New taken', [`structure_id: ${S}`]));
  await mkdir(join(home, '.org'), { recursive: true });
  await writeFile(
    join(home, '.org', 'users.json'),
    JSON.stringify({
      version: 1,
      users: [
        { id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', email: 'owner@localhost', token_hash: hashToken(owner), created_at: '2026-01-01T00:00:00.000Z' },
        { id: '7c9e6679-7425-40de-944b-e07fc1f90ae8', email: 'later@example.com', token_hash: hashToken(later), created_at: '2026-01-02T00:00:00.000Z' },
      ],
    }),
  );
});
afterAll(() => rm(home, { recursive: true, force: true }));

async function start(logs: { message: string; fields?: LogFields }[] = []): Promise<TestInstance> {
  return startInstance({ home, config: { commit: true }, deps: { log: (level: LogLevel, message: string, fields?: LogFields) => void (level === 'info' || level === 'warn' ? logs.push({ message, ...(fields ? { fields } : {}) }) : undefined) } });
}

describe('an existing home moves to the structure folders once, and keeps working', () => {
  it('moves structure skills, their files and deleted versions into the structure’s folder, with git mv, logged', async (context) => {
    requireGit(context);
    await initRepo(home);
    await git(home, 'add', 'skills');
    await git(home, 'commit', '-q', '-m', 'the library of an earlier version');
    const logs: { message: string; fields?: LogFields }[] = [];
    const t = await start(logs);
    try {
      expect((await readdir(join(home, 'skills'))).sort()).toEqual(['.deleted', S, 'shared.md', 'taken.md'].sort());
      expect((await readdir(join(home, 'skills', S))).sort()).toEqual(['.deleted', 'taken.md', 'theirs', 'theirs.md']);
      expect(await readFile(join(home, 'skills', S, 'theirs', 'scripts', 'run.sh'), 'utf8')).toBe('echo run\n');
      expect(await readdir(join(home, 'skills', S, '.deleted'))).toEqual(['gone--2026-01-01T00-00-00.000Z.md']);
      expect(logs.filter((entry) => entry.message === 'moved a structure skill into its structure’s folder').map((entry) => entry.fields?.to).sort()).toEqual(
        [`skills/${S}/.deleted/gone--2026-01-01T00-00-00.000Z.md`, `skills/${S}/theirs`, `skills/${S}/theirs.md`].sort(),
      );
      expect(logs.some((entry) => entry.message.startsWith('a structure skill stays in the root'))).toBe(true);
      // One commit of the moves, and the history follows the file.
      expect(await git(home, 'log', '-1', '--format=%s')).toMatch(/moved into their structures' folders/);
      expect(await git(home, 'status', '--porcelain', '--', 'skills')).toBe('');
      const history = await t.app.skills.get('theirs', S);
      expect(history?.frontmatter.structure_id).toBe(S);
      const { skillHistory } = await import('../src/core/skills/index.js');
      expect((await skillHistory(join(home, 'skills'), { slug: 'theirs', structureId: S })).map((commit) => commit.message)).toEqual([
        expect.stringMatching(/moved into their structures' folders/),
        'the library of an earlier version',
      ]);
      expect(t.app.skills.problems({ structureId: S })).toEqual([expect.objectContaining({ file: 'taken.md', message: expect.stringContaining(`skills/${S}/taken.md`) })]);
      // Another structure is not told about it.
      expect(t.app.skills.problems({ structureId: '0b6f1a52-1111-4222-8333-444455556667' })).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('the first start’s user is the administrator, later users are not; a second start moves nothing', async () => {
    const logs: { message: string; fields?: LogFields }[] = [];
    const t = await start(logs);
    try {
      const me = async (token: string) => (await t.server.inject({ method: 'GET', url: '/api/org/whoami', headers: { authorization: `Bearer ${token}` } })).json<{ admin: boolean }>();
      expect(await me(owner)).toMatchObject({ admin: true });
      expect(await me(later)).toMatchObject({ admin: false });
      expect(JSON.parse(await readFile(join(home, '.org', 'users.json'), 'utf8'))).toMatchObject({ version: 2, users: [{ email: 'owner@localhost', admin: true }, { email: 'later@example.com' }] });
      expect(logs.some((entry) => entry.message === 'moved a structure skill into its structure’s folder')).toBe(false);
    } finally {
      await t.close();
    }
  });
});
