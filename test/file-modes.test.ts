/**
 * Private files 0600, folders 0700 (issue 28, finding 17), on a real listening server
 * run under a umask that takes nothing away (0), so only the modes org asks for count:
 * after a home has been used — users, a structure, an invite (its `.eml` in the outbox
 * carries the acceptance token), a chat turn with an attachment (history, artifacts), a
 * search (the search log), an MCP key, a webhook — every file under `.org/` is 0600 and
 * every folder 0700, and so is the CLI's credentials file and its folder. A home made by
 * an earlier version (0755 folders, 0644 files) is made private when it starts.
 */
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveLogin } from '../src/core/credentials.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

/** Every file and folder below `dir` (links not followed) with its mode, relative to `dir`. */
async function modes(dir: string): Promise<Map<string, { mode: number; folder: boolean }>> {
  const found = new Map<string, { mode: number; folder: boolean }>();
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const info = await lstat(path);
      found.set(relative(dir, path), { mode: info.mode & 0o777, folder: entry.isDirectory() });
      if (entry.isDirectory()) await walk(path);
    }
  };
  found.set('.', { mode: (await lstat(dir)).mode & 0o777, folder: true });
  await walk(dir);
  return found;
}

/** The entries whose mode is not the private one. */
function notPrivate(found: Map<string, { mode: number; folder: boolean }>): string[] {
  return [...found].filter(([, { mode, folder }]) => mode !== (folder ? 0o700 : 0o600)).map(([path, { mode }]) => `${path} ${mode.toString(8)}`);
}

describe('private files 0600, folders 0700', () => {
  let t: TestInstance;
  let previousUmask: number;

  beforeAll(async () => {
    previousUmask = process.umask(0);
    t = await startInstance({ listen: true });
  });
  afterAll(async () => {
    await t.close();
    process.umask(previousUmask);
  });

  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await request(`${t.url}${path}`, {
      method: method as 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    expect(response.statusCode, text).toBeLessThan(300);
    return text;
  };

  it('every file and folder of a used home’s state, and the CLI’s credentials, are private', async () => {
    const owner = await t.createUser('modes@example.com');
    const structure = await t.createStructure(owner.token, 'exec-team', 'Modes');
    await call(owner.token, 'POST', `/api/org/structures/${structure.id}/share`, { email: 'invitee@example.com', role: 'viewer' });
    await call(owner.token, 'POST', '/api/org/chat/message/sync', {
      structure_id: structure.id,
      role_id: 'exec-ceo',
      message: 'prepare the board deck',
      attachments: [{ name: 'notes.txt', content_base64: Buffer.from('numbers').toString('base64'), content_type: 'text/plain' }],
    });
    await call(owner.token, 'POST', '/api/org/knowledge/search', { structure_id: structure.id, query: 'invoice follow up' });
    await call(owner.token, 'POST', `/api/org/structures/${structure.id}/agents/exec-ceo/mcp-key`, { label: 'modes' });
    await call(owner.token, 'POST', `/api/org/structures/${structure.id}/webhooks`, { url: 'https://hooks.example.com/org', events: ['run.completed'] });
    await t.app.skills.settle();

    const state = await modes(join(t.home, '.org'));
    expect([...state.keys()].some((path) => path.startsWith('outbox/') && path.endsWith('.eml'))).toBe(true);
    expect([...state.keys()].some((path) => path.includes('artifacts'))).toBe(true);
    expect(notPrivate(state)).toEqual([]);

    const configDir = join(t.home, 'config');
    await saveLogin(configDir, t.url, { token: owner.token, email: 'modes@example.com' });
    expect(notPrivate(await modes(configDir))).toEqual([]);
  });

  it('a home made by an earlier version is made private when it starts', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-modes-old-'));
    try {
      await mkdir(join(home, '.org', 'outbox'), { recursive: true, mode: 0o755 });
      await chmod(join(home, '.org'), 0o755);
      await writeFile(join(home, '.org', 'outbox', 'old-invite.eml'), 'org_inv_secret', { mode: 0o644 });
      await writeFile(join(home, '.org', 'users.json'), '{"version":1,"users":[]}\n', { mode: 0o644 });
      const old = await startInstance({ home });
      await old.close();
      expect(notPrivate(await modes(join(home, '.org')))).toEqual([]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
