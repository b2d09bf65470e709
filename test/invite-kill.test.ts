/**
 * Invite acceptance survives a kill at any step (issue 10, item 8): the acceptance
 * writes a user (when the address has none), a membership and the invite's status. The
 * server runs as a child process that stops right after one of these writes and is
 * SIGKILLed there (it signals the step over IPC; nothing waits on time). After a restart
 * the same one-time token must still work and give a usable result, and only then be
 * used up: a kill must never burn it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MailMessage } from '../src/core/mail/index.js';
import { ensureBuilt, REPO_ROOT } from './helpers/child.js';
import { startInstance } from './helpers/instance.js';

const ADMIN = 'kill-admin-token-0123456789abcdef';

interface Paused {
  child: ChildProcess;
  url: string;
  /** Resolves with the step name once the child stopped there. */
  paused: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the pausing server on `home` and waits for its URL. */
function startPaused(home: string, pauseAt: string): Promise<Paused> {
  const child = fork(join(REPO_ROOT, 'test', 'fixtures', 'paused-serve.js'), [], {
    cwd: REPO_ROOT,
    env: { ...process.env, ORG_TEST_HOME: home, ORG_TEST_PAUSE_AT: pauseAt },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const paused = new Promise<string>((resolve) => child.on('message', (message: { paused?: string }) => message.paused && resolve(message.paused)));
  return new Promise((resolve, reject) => {
    child.on('message', (message: { url?: string }) => message.url && resolve({ child, url: message.url, paused, exited }));
    void exited.then((exit) => reject(new Error(`paused server exited early ${JSON.stringify(exit)}: ${stderr}`)));
  });
}

/** Prepares a home: an owner, a structure, and an invite whose token is returned. */
async function prepare(home: string, email: string, existingUser: boolean): Promise<{ structureId: string; token: string; userToken?: string }> {
  const sent: MailMessage[] = [];
  const mailer = { send: async (message: MailMessage) => (sent.push(message), { messageId: `<${sent.length}@test>` }), close: async () => undefined };
  const t = await startInstance({ home, deps: { mailer } });
  try {
    const owner = await t.createUser('owner@example.com');
    const userToken = existingUser ? (await t.createUser(email)).token : undefined;
    const structureId = (await t.createStructure(owner.token, 'blank', 'Shared')).id;
    await t.app.invites.share({ structureId, email, role: 'operator', invitedBy: 'owner@example.com' });
    const token = /org_inv_[A-Za-z0-9]+/.exec(sent.at(-1)?.text ?? '')?.[0];
    if (!token) throw new Error('no invite token in the e-mail');
    return { structureId, token, ...(userToken ? { userToken } : {}) };
  } finally {
    await t.close();
  }
}

async function accept(url: string, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/api/org/invites/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('invite acceptance under SIGKILL', () => {
  let home: string;
  beforeAll(() => ensureBuilt(), 120_000);
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-invite-kill-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const cycles = [
    { step: 'user-created', existingUser: false },
    { step: 'member-written', existingUser: false },
    { step: 'member-written', existingUser: true },
  ];

  it.each(cycles)('killed after $step (address had a user: $existingUser): the token still accepts once, with a working result', { timeout: 60_000 }, async ({ step, existingUser }) => {
    const email = 'invitee@example.com';
    const { structureId, token, userToken } = await prepare(home, email, existingUser);

    const paused = await startPaused(home, step);
    const pending = accept(paused.url, token).catch(() => undefined);
    expect(await paused.paused).toBe(step);
    paused.child.kill('SIGKILL');
    expect(await paused.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await pending;

    const t = await startInstance({ home, listen: true });
    try {
      const retried = await accept(t.url, token);
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body).toMatchObject({ structure_id: structureId, role: 'operator', user: { email } });
      const bearer = existingUser ? userToken! : (retried.body.token as string);
      if (existingUser) expect(retried.body.token).toBeUndefined();
      else expect(bearer).toMatch(/^org_u_/);
      const structures = await fetch(`${t.url}/api/org/structures`, { headers: { authorization: `Bearer ${bearer}` } });
      expect(await structures.json()).toEqual({ structures: [expect.objectContaining({ id: structureId, role: 'operator' })] });
      const members = t.app.members.list(structureId).filter((member) => member.role === 'operator');
      expect(members).toHaveLength(1);
      // Used up now, exactly once.
      expect((await accept(t.url, token)).status).toBe(410);
    } finally {
      await t.close();
    }
  });

  it('two acceptances of one token at once: exactly one succeeds', async () => {
    const { token } = await prepare(home, 'twice@example.com', false);
    const t = await startInstance({ home, listen: true, config: { adminToken: ADMIN } });
    try {
      const results = await Promise.all([accept(t.url, token), accept(t.url, token), accept(t.url, token)]);
      expect(results.map((result) => result.status).sort()).toEqual([200, 410, 410]);
    } finally {
      await t.close();
    }
  });
});
