/**
 * `org serve` reports through one logger (issue 10, item 10): the app's services write
 * to the server's pino logger on stderr, every level included, and a background write
 * that fails (here the periodic save of MCP key last-use times, when `.org/keys.json`
 * can no longer be replaced) is an `error` record while the server goes on serving. It
 * used to be an unhandled rejection that ended the process.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startServe, type ServeChild } from './helpers/child.js';

const ADMIN = 'logging-admin-token-0123456789abcdef';

/** Resolves with the first stderr JSON record whose `msg` is `message`; rejects if the server exits first. */
function record(child: ServeChild, message: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    void child.exited.then((exit) => reject(new Error(`org serve exited (${JSON.stringify(exit)}) before logging "${message}": ${child.stderr()}`)));
    const check = () => {
      for (const line of child.stderr().split('\n')) {
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.msg === message) {
          child.process.stderr?.off('data', check);
          resolve(parsed);
          return;
        }
      }
    };
    child.process.stderr?.on('data', check);
    check();
  });
}

describe('org serve logs every level through one logger', () => {
  let home: string;
  let child: ServeChild;
  beforeAll(async () => {
    ensureBuilt();
    home = await mkdtemp(join(tmpdir(), 'org-serve-log-'));
    await mkdir(join(home, 'skills'), { recursive: true });
    await writeFile(join(home, 'outside.md'), '---\ntype: skill\nname: Outside\nstatus: complete\n---\nBody\n');
    await symlink(join(home, 'outside.md'), join(home, 'skills', 'linked.md'));
    child = await startServe({ home, args: ['--no-demo'], env: { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg'), ORG_LOG_LEVEL: 'info' } });
  }, 120_000);
  afterAll(async () => {
    await child?.stop('SIGKILL');
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('a skill file skipped at start-up is an info record on stderr (the start-up lines on stdout name it in words)', async () => {
    const skipped = await record(child, 'skill file skipped');
    expect(skipped).toMatchObject({ level: 30, file: 'linked.md', message: expect.stringContaining('symbolic link') });
  });

  it('a failing background save is an error record, and the server keeps serving', { timeout: 60_000 }, async () => {
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const response = await fetch(`${child.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const structure = await call('POST', '/api/org/structures', ADMIN, { name: 'Logged', template: 'blank' });
    const id = structure.body.id as string;
    expect((await call('POST', `/api/org/structures/${id}/agents`, ADMIN, { role_id: 'team-a', label: 'A' })).status).toBe(201);
    const key = await call('POST', `/api/org/structures/${id}/agents/team-a/mcp-key`, ADMIN, { label: 'k' });
    // A folder now stands where keys.json was, so its next save fails.
    await rm(join(home, '.org', 'keys.json'));
    await mkdir(join(home, '.org', 'keys.json', 'blocker'), { recursive: true });
    const failed = record(child, 'saving MCP key last-use times failed');
    expect((await call('GET', `/api/org/structures/${id}`, key.body.token as string)).status).toBe(200);
    expect(await failed).toMatchObject({ level: 50, error: expect.any(String) });
    const health = await fetch(`${child.url}/api/org/health`);
    expect(health.status).toBe(200);
    expect(child.process.exitCode).toBeNull();
    expect(child.stderr()).not.toContain(key.body.token as string);
  });
});
