/**
 * Chat with MCP node keys (API.md §3): a key may chat with its own node only (another
 * node of its structure → 403, another structure → 404); revoking a key ends every open
 * stream that uses it with `error` `{message: "key revoked"}` — a message stream and a
 * resume stream alike — and every later request with it is 401. Streams of other
 * principals on the same run are not touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../src/core/chat/types.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import { expectProblem, startChat, type ChatFixture } from './helpers/chat.js';

const SLOW: EventInput[] = [
  ...Array.from({ length: 30 }, (_, index): EventInput => ({ type: 'text', content: `t${index} ` })),
  { type: 'complete', content: { summary: 'slow done', artifacts: [] } },
];

describe('chat with MCP keys', () => {
  let c: ChatFixture;
  beforeAll(async () => {
    c = await startChat({ deps: { runtime: () => createScriptedRuntime(SLOW, { delayMs: 40 }) } });
  });
  afterAll(async () => {
    await c.close();
  });

  async function mint(roleId: string): Promise<{ id: string; token: string }> {
    const response = await c.t.server.inject({
      method: 'POST',
      url: `/api/org/structures/${c.structure.id}/agents/${roleId}/mcp-key`,
      headers: c.t.auth(c.owner.token),
      payload: { label: 'chat test' },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  async function revoke(roleId: string, keyId: string): Promise<void> {
    const response = await c.t.server.inject({
      method: 'DELETE',
      url: `/api/org/structures/${c.structure.id}/agents/${roleId}/mcp-key/${keyId}`,
      headers: c.t.auth(c.owner.token),
    });
    expect(response.statusCode, response.body).toBe(204);
  }

  it('revoking a key ends its open streams with error "key revoked"; the key is then 401', async () => {
    const key = await mint(c.roleId);
    const stream = await c.send('work slowly', { token: key.token });
    expect(stream.status).toBe(200);
    await stream.until((r) => r.frames().length >= 2);
    const runId = String(stream.headers['x-org-run-id']);

    // A resume stream with the same key, and an owner's stream on the same run.
    const resumed = await c.resume(runId, '1', key.token);
    const watcher = await c.resume(runId, '1');
    await resumed.until((r) => r.frames().length >= 1);
    await watcher.until((r) => r.frames().length >= 1);

    await revoke(c.roleId, key.id);
    await Promise.all([stream.ended, resumed.ended]);
    for (const response of [stream, resumed]) {
      const last = response.frames().at(-1);
      expect(last?.event).toEqual({ type: 'error', content: { message: 'key revoked' }, timestamp: expect.stringMatching(/Z$/) });
      expect(response.text).toMatch(/data: \{"type":"error","content":\{"message":"key revoked"\},"timestamp":"[^"]+"\}\n\n$/);
      expect(response.frames().some((frame) => frame.event?.type === 'complete')).toBe(false);
    }

    // The owner's stream goes on to the real end of the turn.
    await watcher.ended;
    expect(watcher.frames().at(-1)?.event?.type).toBe('complete');

    // From now on the key is refused.
    const refused = await c.send('again', { token: key.token });
    const body = await expectProblem(refused, 401, 'unauthorized');
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(JSON.stringify(body)).not.toContain(key.token);
    await expectProblem(await c.resume(runId, undefined, key.token), 401, 'unauthorized');
    expect(c.t.app.connections.count(key.id)).toBe(0);
  });

  it('a key chats with its own node only: another node → 403, another structure → 404', async () => {
    const key = await mint(c.roleId);
    const own = await c.send('mine', { token: key.token });
    expect(own.status).toBe(200);
    const runId = String(own.headers['x-org-run-id']);
    await own.ended;
    expect(own.frames().at(-1)?.event?.type).toBe('complete');
    expect(c.t.app.connections.count(key.id)).toBe(0);

    await expectProblem(await c.send('not mine', { token: key.token, roleId: c.otherRoleId }), 403, 'forbidden');
    const otherStructure = await c.t.createStructure(c.owner.token, 'personal', 'Other');
    await expectProblem(
      await c.send('elsewhere', { token: key.token, structureId: otherStructure.id, roleId: otherStructure.agents[0]!.role_id }),
      404,
      'not_found',
    );

    // Its own node's runs and history are open to it; another node's are not.
    const replay = await c.resume(runId, undefined, key.token);
    await replay.ended;
    expect(replay.frames()).toHaveLength(SLOW.length);
    expect((await c.history({ token: key.token })).some((message) => message.run_id === runId)).toBe(true);
    const otherRun = await c.send('owner talks to the cto', { roleId: c.otherRoleId });
    const otherRunId = String(otherRun.headers['x-org-run-id']);
    await expectProblem(await c.resume(otherRunId, undefined, key.token), 403, 'forbidden');
    const cancel = await c.t.server.inject({ method: 'POST', url: `/api/org/chat/runs/${otherRunId}/cancel`, headers: c.t.auth(key.token) });
    expect(cancel.statusCode).toBe(403);
    await otherRun.ended;
    const history = await c.t.server.inject({
      method: 'GET',
      url: `/api/org/chat/history?structure_id=${c.structure.id}&role_id=${c.otherRoleId}`,
      headers: c.t.auth(key.token),
    });
    expect(history.statusCode).toBe(403);
    const sync = await c.open('/api/org/chat/message/sync', {
      token: key.token,
      body: { structure_id: c.structure.id, role_id: c.otherRoleId, message: 'sync elsewhere' },
    });
    await expectProblem(sync, 403, 'forbidden');
  });
});
