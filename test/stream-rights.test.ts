/**
 * Every stream closes when its caller loses the right to it (issue 28, finding 13), on a
 * real listening server: a member removed from the structure, or demoted below what the
 * stream needs (operator, to follow a node's turns), loses the live chat stream of a
 * running turn and the replay of a run's events at once — each ends with an `error`
 * event `{message: "access revoked"}` — while the turn goes on and another member keeps
 * following it. An MCP key revoked ends its session's own `GET /mcp` stream at once.
 * Every wait is on the stream's end, never on time.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_REVOKED } from '../src/core/auth/index.js';
import { createGatedRuntime, type GatedRuntime } from './helpers/gated-runtime.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { open, type SseResponse } from './helpers/sse.js';

const MCP_VERSION = '2025-06-18';

describe('every stream closes when its caller loses the right to it', () => {
  let t: TestInstance;
  let gated: GatedRuntime;
  let owner: { token: string; id: string };
  let structureId: string;
  const roleId = 'exec-ceo';

  beforeAll(async () => {
    gated = createGatedRuntime();
    t = await startInstance({ listen: true, deps: { runtime: () => gated.runtime } });
    owner = await t.createUser('rights-owner@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Rights')).id;
  });
  afterAll(async () => {
    gated.release();
    await t.close();
  });

  const call = async (method: 'PATCH' | 'DELETE' | 'POST', path: string, token: string, body?: unknown) => {
    const response = await request(`${t.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  /** A new operator of the structure, and a turn of theirs held open, streamed to them. */
  const operatorWithStream = async (email: string, node = roleId): Promise<{ id: string; token: string; stream: SseResponse; runId: string }> => {
    const user = await t.createUser(email);
    await t.app.members.set(structureId, user.id, 'operator');
    const stream = await open(`${t.url}/api/org/chat/message`, { token: user.token, body: { structure_id: structureId, role_id: node, message: `gated turn of ${email}` } });
    expect(stream.status).toBe(200);
    await stream.until((response) => response.frames().length >= 1);
    return { ...user, stream, runId: String(stream.headers['x-org-run-id']) };
  };
  const endedRevoked = async (stream: SseResponse) => {
    await stream.ended;
    expect(stream.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: ACCESS_REVOKED } });
  };

  it('a member removed loses the live stream of a running turn and the replay of its run, at once; the turn goes on', async () => {
    const member = await operatorWithStream('removed@example.com');
    const replay = await open(`${t.url}/api/org/chat/runs/${member.runId}/events`, { method: 'GET', token: member.token });
    expect(replay.status).toBe(200);
    const ownerFollows = await open(`${t.url}/api/org/chat/runs/${member.runId}/events`, { method: 'GET', token: owner.token });
    expect(ownerFollows.status).toBe(200);

    const removed = await call('DELETE', `/api/org/structures/${structureId}/members/${member.id}`, owner.token);
    expect(removed.status).toBe(204);
    await endedRevoked(member.stream);
    await endedRevoked(replay);
    // The owner still follows the turn, which goes on to its end.
    expect(ownerFollows.done).toBe(false);
    gated.release();
    await ownerFollows.ended;
    expect(ownerFollows.frames().at(-1)?.event?.type).toBe('complete');
  });

  it('a member demoted below operator loses their streams at once; promoted ones and other members keep theirs', async () => {
    const demoted = await operatorWithStream('demoted@example.com');
    const kept = await operatorWithStream('kept@example.com', 'exec-cfo');
    const replay = await open(`${t.url}/api/org/chat/runs/${demoted.runId}/events`, { method: 'GET', token: demoted.token });
    expect(replay.status).toBe(200);

    const changed = await call('PATCH', `/api/org/structures/${structureId}/members/${demoted.id}`, owner.token, { role: 'viewer' });
    expect(changed.status).toBe(200);
    await endedRevoked(demoted.stream);
    await endedRevoked(replay);
    // A change that keeps the right (operator → owner) closes nothing.
    const promoted = await call('PATCH', `/api/org/structures/${structureId}/members/${kept.id}`, owner.token, { role: 'owner' });
    expect(promoted.status).toBe(200);
    expect(kept.stream.done).toBe(false);
    gated.release();
    await kept.stream.ended;
    expect(kept.stream.frames().at(-1)?.event?.type).toBe('complete');
  });

  it("a revoked MCP key's session stream (GET /mcp) ends at once", async () => {
    const minted = await call('POST', `/api/org/structures/${structureId}/agents/${roleId}/mcp-key`, owner.token, { label: 'streams' });
    const key = minted.body as { id: string; token: string };
    const rpc = (session: string | undefined, body: unknown) =>
      request(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': MCP_VERSION } : {}),
        },
        body: JSON.stringify(body),
      });
    const initialized = await rpc(undefined, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: MCP_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    await initialized.body.text();
    const session = String(initialized.headers['mcp-session-id']);
    await (await rpc(session, { jsonrpc: '2.0', method: 'notifications/initialized' })).body.text();
    const sessionStream = await open(`${t.url}/mcp`, { method: 'GET', token: key.token, headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': MCP_VERSION } });
    expect(sessionStream.status).toBe(200);

    const revoked = await call('DELETE', `/api/org/structures/${structureId}/agents/${roleId}/mcp-key/${key.id}`, owner.token);
    expect(revoked.status).toBe(204);
    await sessionStream.ended;
    expect((await rpc(session, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).statusCode).toBe(401);
  });
});
