/**
 * The inbound messaging channel (API.md §7): `POST /api/org/inbound/message` signed with
 * the inbound secret → 202 {run_id}; the turn shows in the node's history with the
 * sender noted as origin; bad or missing signatures → 401 before the body is looked at;
 * unknown nodes → 404; invalid bodies → 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundHeaders } from '../src/core/inbound/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { createWorkRuntime } from './helpers/work-runtime.js';

const SECRET = 'channel-secret-0123456789abcdef';

describe('inbound messaging channel', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structure: { id: string; agents: { id: string; role_id: string }[] };
  let roleId: string;

  const post = (payload: unknown, sign: string | null = SECRET, raw?: string) => {
    const body = raw ?? JSON.stringify(payload);
    return fetch(`${t.url}/api/org/inbound/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(sign ? { ...inboundHeaders(sign, body) } : {}) },
      body,
    });
  };

  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { inboundSecret: SECRET }, deps: { runtime: () => createWorkRuntime(5) } });
    owner = await t.createUser('owner@example.com');
    structure = await t.createStructure(owner.token, 'exec-team');
    roleId = structure.agents[2]!.role_id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('202 {run_id}; the history shows the user message with origin message:<sender> and the agent’s reply', async () => {
    const response = await post({ structure_id: structure.id, role_id: roleId, text: 'summarise this week’s sales calls', sender: 'slack:U024BE7LH' });
    expect(response.status).toBe(202);
    const { run_id } = (await response.json()) as { run_id: string };
    await t.app.chat.run(run_id)!.done;

    const history = await t.server.inject({
      method: 'GET',
      url: `/api/org/chat/history?structure_id=${structure.id}&role_id=${roleId}`,
      headers: t.auth(owner.token),
    });
    expect(history.statusCode).toBe(200);
    const [agent, user] = history.json<Record<string, unknown>[]>();
    expect(user).toMatchObject({ sender: 'user', run_id, text: 'summarise this week’s sales calls', origin: 'message:slack:U024BE7LH', author: { kind: 'channel', id: 'slack:U024BE7LH', label: 'slack:U024BE7LH' } });
    expect(agent).toMatchObject({ sender: 'agent', run_id, status: 'complete', summary: 'Done: summarise this week’s sales calls', artifacts: ['report.md'] });
    expect((agent!.events as { type: string }[]).map((event) => event.type)).toEqual(['thought', 'milestone', 'text', 'complete']);
  });

  it('401 without a signature, with a wrong secret, or when the body was changed after signing', async () => {
    const body = { structure_id: structure.id, role_id: roleId, text: 'hi', sender: 'alice' };
    const missing = await post(body, null);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: 'unauthorized' });
    expect((await post(body, 'wrong-secret-0123456789abcdef')).status).toBe(401);
    const tampered = await fetch(`${t.url}/api/org/inbound/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...inboundHeaders(SECRET, JSON.stringify(body)) },
      body: JSON.stringify({ ...body, text: 'something else' }),
    });
    expect(tampered.status).toBe(401);
    // The signature is checked before validation: an invalid body with no signature is 401, not 400.
    expect((await post({ nonsense: true }, null)).status).toBe(401);
  });

  it('404 for a node or structure that does not exist; 400 for an invalid body', async () => {
    expect((await post({ structure_id: structure.id, role_id: 'no-such-node', text: 'hi', sender: 'a' })).status).toBe(404);
    expect((await post({ structure_id: '00000000-0000-4000-8000-000000000000', role_id: roleId, text: 'hi', sender: 'a' })).status).toBe(404);
    const invalid = await post({ structure_id: structure.id, role_id: roleId, sender: 'a' });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ code: 'invalid_request', errors: [{ path: 'body.text' }] });
    expect((await post(undefined, SECRET, '{not json')).status).toBe(400);
  });
});
