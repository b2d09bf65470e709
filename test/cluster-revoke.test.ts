/**
 * Revocation across instances (issue 14, item 6), on two real `org serve` processes that
 * share one PostgreSQL database: an MCP key minted on A is used on B for a chat stream
 * (its turn held open by a container agent the test controls) and an MCP session. The
 * key is revoked through A: on B the stream ends with `error` "key revoked", the MCP
 * session is closed (its server stream ends and its id is unknown), and the key is
 * refused with 401 there too. Likewise a user's token replaced through A ends, on B, the
 * streams opened with the old token, while the new one follows the turn there; and a
 * member removed through A loses, on B, the stream of their running turn (issue 28,
 * finding 13). Every wait is on an event (the stream's end).
 */
import { request } from 'undici';
import { ACCESS_REVOKED, TOKEN_REPLACED } from '../src/core/auth/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './support/database.js';
import { ensureBuilt, type ServeChild } from './helpers/child.js';
import { callJson as api, startMember, stopCluster } from './helpers/cluster.js';
import { startGateAgent, type GateAgent } from './helpers/gate-agent.js';
import { inviteTokenFor } from './helpers/outbox.js';
import { open } from './helpers/sse.js';

const ADMIN = 'revoke-admin-token-0123456789abcdef';
const MCP_VERSION = '2025-06-18';

/** One JSON-RPC POST to `/mcp`; the session id of the answer, if any. */
async function mcp(base: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; session: string | undefined }> {
  const response = await request(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  await response.body.text();
  const session = response.headers['mcp-session-id'];
  return { status: response.statusCode, session: typeof session === 'string' ? session : undefined };
}

describe('revoking a key on one instance of a cluster', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let gate: GateAgent;
  const dirs: string[] = [];
  const instances: ServeChild[] = [];
  let a: ServeChild;
  let b: ServeChild;

  beforeAll(async () => {
    ensureBuilt();
    database = await testDatabase();
    gate = await startGateAgent();
    const start = () => startMember({ instances, dirs }, database, { prefix: 'org-revoke-', admin: ADMIN });
    [a, b] = await Promise.all([start(), start()]);
  }, 180_000);

  afterAll(() => stopCluster({ instances, services: [gate], database, dirs }));

  /** Creates a structure on A as `token`, with an `office-clerk` node whose container is the gate agent; answers its id. */
  const clerkStructure = async (token: string, name: string): Promise<string> => {
    const created = await api(a.url, 'POST', '/api/org/structures', token, { name, template: 'blank' });
    expect(created.status).toBe(201);
    const structureId = String(created.body.id);
    const rootId = (created.body.agents as { id: string }[])[0]?.id ?? null;
    const added = await api(a.url, 'POST', `/api/org/structures/${structureId}/agents`, token, { role_id: 'office-clerk', label: 'Clerk', parent_id: rootId, container_url: gate.url });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    return structureId;
  };

  it('ends its streams and MCP sessions on the other instance, where it is then refused', async () => {
    const structureId = await clerkStructure(ADMIN, 'Revoke');
    const mint = async (label: string) => {
      const minted = await api(a.url, 'POST', `/api/org/structures/${structureId}/agents/office-clerk/mcp-key`, ADMIN, { label });
      expect(minted.status).toBe(201);
      return { id: String(minted.body.id), token: String(minted.body.token) };
    };
    const key = await mint('revoked');
    const other = await mint('other');

    // On B: a chat stream held open by the agent, and an MCP session, both with the key.
    const stream = await open(`${b.url}/api/org/chat/message`, { token: key.token, body: { structure_id: structureId, role_id: 'office-clerk', message: 'hold the line' } });
    expect(stream.status).toBe(200);
    const turn = await gate.turn('hold the line');
    await stream.until((response) => response.frames().length >= 1);
    const initialized = await mcp(b.url, { authorization: `Bearer ${key.token}` }, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: MCP_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(initialized.status).toBe(200);
    const session = initialized.session!;
    expect(session).toBeTruthy();
    const listed = await mcp(b.url, { authorization: `Bearer ${key.token}`, 'mcp-session-id': session, 'mcp-protocol-version': MCP_VERSION }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(listed.status).toBe(200);
    // The session's own stream of server messages, open until the session ends.
    const sessionStream = await open(`${b.url}/mcp`, {
      method: 'GET',
      token: key.token,
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': MCP_VERSION },
    });
    expect(sessionStream.status).toBe(200);
    expect(sessionStream.done).toBe(false);

    const revoked = await api(a.url, 'DELETE', `/api/org/structures/${structureId}/agents/office-clerk/mcp-key/${key.id}`, ADMIN);
    expect(revoked.status).toBe(204);

    // B learns of it: the stream ends with the revocation, not with the turn's end.
    await stream.ended;
    expect(stream.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'key revoked' } });
    // The session is closed on B (its stream ends; its id is unknown there), and the key is refused.
    await sessionStream.ended;
    const reused = await mcp(b.url, { authorization: `Bearer ${other.token}`, 'mcp-session-id': session, 'mcp-protocol-version': MCP_VERSION }, { jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect(reused.status).toBe(404);
    expect((await api(b.url, 'GET', '/api/org/whoami', key.token)).status).toBe(401);
    expect((await api(b.url, 'GET', '/api/org/whoami', other.token)).status).toBe(200);
    turn.release();
  });

  it('ends, on the other instance, the streams of a user token replaced on one; the new token follows the turn there', async () => {
    const user = await api(a.url, 'POST', '/api/org/users', ADMIN, { email: 'rotating@example.com' });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const token = String(user.body.token);
    const structureId = await clerkStructure(token, 'Rotate');

    const stream = await open(`${b.url}/api/org/chat/message`, { token, body: { structure_id: structureId, role_id: 'office-clerk', message: 'hold the rotation' } });
    expect(stream.status).toBe(200);
    const turn = await gate.turn('hold the rotation');
    await stream.until((response) => response.frames().length >= 1);

    const rotated = await api(a.url, 'POST', '/api/org/users/me/token', token);
    expect(rotated.status).toBe(200);
    const fresh = String(rotated.body.token);
    await stream.ended;
    expect(stream.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: TOKEN_REPLACED } });
    expect((await api(b.url, 'GET', '/api/org/whoami', token)).status).toBe(401);

    const follow = await open(`${b.url}/api/org/chat/runs/${String(stream.headers['x-org-run-id'])}/events`, { method: 'GET', token: fresh });
    expect(follow.status).toBe(200);
    await follow.until((response) => response.frames().length >= 1);
    turn.release();
    await follow.ended;
    expect(follow.frames().at(-1)?.event?.type).toBe('complete');
  });

  it('ends, on the other instance, the stream of a member removed on one', async () => {
    const structureId = await clerkStructure(ADMIN, 'Remove');
    const user = await api(a.url, 'POST', '/api/org/users', ADMIN, { email: 'removed@example.com' });
    expect(user.status).toBe(201);
    const token = String(user.body.token);
    const userId = String((user.body.user as { id: string }).id);
    const shared = await api(a.url, 'POST', `/api/org/structures/${structureId}/share`, ADMIN, { email: 'removed@example.com', role: 'operator' });
    expect(shared.status).toBe(200);
    const invite = await Promise.any(dirs.map((home) => inviteTokenFor(home, 'removed@example.com')));
    const accepted = await request(`${b.url}/api/org/invites/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: invite }) });
    expect(accepted.statusCode).toBe(200);
    await accepted.body.text();

    const stream = await open(`${b.url}/api/org/chat/message`, { token, body: { structure_id: structureId, role_id: 'office-clerk', message: 'hold the membership' } });
    expect(stream.status).toBe(200);
    const turn = await gate.turn('hold the membership');
    await stream.until((response) => response.frames().length >= 1);

    const removed = await api(a.url, 'DELETE', `/api/org/structures/${structureId}/members/${userId}`, ADMIN);
    expect(removed.status).toBe(204);
    await stream.ended;
    expect(stream.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: ACCESS_REVOKED } });
    turn.release();
  });
});
