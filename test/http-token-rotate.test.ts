/**
 * Replacing user tokens over real HTTP: a person rotates their own token, the
 * administrator resets anyone's; the answer carries the new token once, the old one is
 * refused from then on (also when it was in use just before), and each replacement is
 * in the audit log. The chat streams opened with the old token end at once; the turn
 * goes on and can be followed with the new one. The CLI's `org token rotate` saves the new token where the old one
 * was saved; `org users reset-token` prints it once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenRotate } from '../src/cli/commands/login.js';
import { runUsersResetToken } from '../src/cli/commands/sharing.js';
import { TOKEN_REPLACED } from '../src/core/auth/index.js';
import { saveLogin } from '../src/core/credentials.js';
import type { AuditPage, CreatedUser } from '../src/core/schemas/index.js';
import { capture } from './cli-helpers.js';
import { startGateAgent } from './helpers/gate-agent.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { open } from './helpers/sse.js';

describe('replacing user tokens', () => {
  let t: TestInstance;
  const post = (path: string, token: string) => fetch(`${t.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const whoami = (token: string) => fetch(`${t.url}/api/org/whoami`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    t = await startInstance({ listen: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it('rotates the caller’s own token: the new one works, the old one (in use a moment ago) is refused', async () => {
    const ana = await t.createUser('ana@example.com');
    expect((await whoami(ana.token)).status).toBe(200);
    const response = await post('/api/org/users/me/token', ana.token);
    expect(response.status).toBe(200);
    const rotated = (await response.json()) as CreatedUser;
    expect(rotated.user).toMatchObject({ id: ana.id, email: 'ana@example.com' });
    expect(rotated.token).toMatch(/^org_u_[0-9A-Za-z]{32,}$/);
    expect(rotated.token).not.toBe(ana.token);
    const refused = await whoami(ana.token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await (await whoami(rotated.token)).json()) as { user: { id: string } }).user.id).toBe(ana.id);
  });

  it('lets the administrator reset a user’s token, and only the administrator', async () => {
    const ben = await t.createUser('ben@example.com');
    const other = await t.createUser('cleo@example.com');
    expect((await post(`/api/org/users/${ben.id}/token`, other.token)).status).toBe(403);
    expect((await whoami(ben.token)).status).toBe(200);
    const response = await post(`/api/org/users/${ben.id}/token`, ADMIN_TOKEN);
    expect(response.status).toBe(200);
    const reset = (await response.json()) as CreatedUser;
    expect(reset.user.email).toBe('ben@example.com');
    expect((await whoami(ben.token)).status).toBe(401);
    expect((await whoami(reset.token)).status).toBe(200);
    const missing = await post('/api/org/users/00000000-0000-4000-8000-000000000000/token', ADMIN_TOKEN);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { detail: string }).detail).toBe('user 00000000-0000-4000-8000-000000000000 not found');
    expect((await post('/api/org/users/not-a-uuid/token', ADMIN_TOKEN)).status).toBe(400);
  });

  it('refuses to rotate the administrator token and node keys, saying why', async () => {
    const admin = await post('/api/org/users/me/token', ADMIN_TOKEN);
    expect(admin.status).toBe(403);
    expect(((await admin.json()) as { detail: string }).detail).toContain('ORG_ADMIN_TOKEN');
    const owner = await t.createUser('dora@example.com');
    const structure = await t.createStructure(owner.token, 'personal', 'Keys');
    const minted = await fetch(`${t.url}/api/org/structures/${structure.id}/agents/${structure.agents[0]!.role_id}/mcp-key`, { method: 'POST', headers: t.auth(owner.token) });
    expect(minted.status).toBe(201);
    const key = ((await minted.json()) as { token: string }).token;
    expect((await post('/api/org/users/me/token', key)).status).toBe(403);
  });

  it('ends the chat streams opened with the replaced token; the turn goes on and the new token follows it', async () => {
    const gate = await startGateAgent();
    try {
      const fay = await t.createUser('fay@example.com');
      const structure = await t.createStructure(fay.token, 'personal', 'Streams');
      const roleId = structure.agents[0]!.role_id;
      const patched = await fetch(`${t.url}/api/org/structures/${structure.id}/agents/${roleId}`, {
        method: 'PATCH',
        headers: { ...t.auth(fay.token), 'content-type': 'application/json' },
        body: JSON.stringify({ container_url: gate.url }),
      });
      expect(patched.status, await patched.text()).toBe(200);
      const stream = await open(`${t.url}/api/org/chat/message`, { token: fay.token, body: { structure_id: structure.id, role_id: roleId, message: 'hold for fay' } });
      expect(stream.status).toBe(200);
      const turn = await gate.turn('hold for fay');
      await stream.until((response) => response.frames().length >= 1);

      const rotated = (await (await post('/api/org/users/me/token', fay.token)).json()) as CreatedUser;
      await stream.ended;
      expect(stream.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: TOKEN_REPLACED } });

      const follow = await open(`${t.url}/api/org/chat/runs/${String(stream.headers['x-org-run-id'])}/events`, { method: 'GET', token: rotated.token });
      expect(follow.status).toBe(200);
      await follow.until((response) => response.frames().length >= 1);
      turn.release();
      await follow.ended;
      expect(follow.frames().at(-1)?.event?.type).toBe('complete');
    } finally {
      await gate.close();
    }
  });

  it('records every replacement in the audit log', async () => {
    const page = (await (await fetch(`${t.url}/api/org/audit?action=user.token_rotate`, { headers: t.auth(ADMIN_TOKEN) })).json()) as AuditPage;
    const byTarget = page.entries.map((entry) => [entry.actor.kind, entry.target?.type, entry.status]);
    expect(byTarget).toHaveLength(3);
    expect(byTarget).toEqual(expect.arrayContaining([['user', 'user', 200], ['user', 'user', 200], ['admin', 'user', 200]]));
  });

  it('org token rotate saves the new token where the old one was saved; org users reset-token prints it once', async () => {
    const eve = await t.createUser('eve@example.com');
    const configDir = join(t.home, 'cli-rotate');
    await saveLogin(configDir, t.url, { token: eve.token, email: 'eve@example.com' });
    const out = capture();
    const deps = (env: Record<string, string>) => ({ output: out.output, env: { ORG_CONFIG_DIR: configDir, ...env }, cwd: t.home, interactive: false });
    expect(await runTokenRotate({}, deps({}))).toBe(0);
    expect(out.text()).toContain('new token for eve@example.com saved to');
    const saved = JSON.parse(await readFile(join(configDir, 'credentials.json'), 'utf8')) as { servers: Record<string, { token: string }> };
    const savedToken = saved.servers[t.url]?.token ?? '';
    expect(savedToken).not.toBe(eve.token);
    expect((await whoami(savedToken)).status).toBe(200);
    expect((await whoami(eve.token)).status).toBe(401);
    out.clear();

    expect(await runUsersResetToken({ userId: eve.id }, deps({ ORG_URL: t.url, ORG_TOKEN: ADMIN_TOKEN }))).toBe(0);
    const printed = /org_u_[0-9A-Za-z]+/.exec(out.text())?.[0] ?? '';
    expect(out.errText()).toContain('shown only once');
    expect((await whoami(printed)).status).toBe(200);
    expect((await whoami(savedToken)).status).toBe(401);
  });
});
