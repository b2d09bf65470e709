/**
 * Sessions of 2025-revision clients are freed: 1,000 `initialize` without DELETE (as the
 * Inspector and the SDK's close() leave them) keep at most the per-key cap open and
 * leave the heap flat after GC; idle sessions expire; a session with a turn in flight is
 * neither evicted nor expired; the 2026-07-28 revision keeps no session at all.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatedRuntime, type GatedRuntime } from './helpers/gated-runtime.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const CAP = 8;
let now = 1_000_000;
let t: TestInstance;
let gated: GatedRuntime;
let key: { id: string; token: string };

const headers = () => ({ authorization: `Bearer ${key.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
const initialize = async (): Promise<Response> => {
  const response = await fetch(new URL('/mcp', t.url), {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'abandoned', version: '1' } } }),
  });
  await response.text();
  return response;
};

function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

beforeAll(async () => {
  gated = createGatedRuntime();
  t = await startInstance({ listen: true, deps: { runtime: () => gated.runtime }, mcp: { maxSessionsPerKey: CAP, sessionIdleMs: 60_000, now: () => now } });
  const owner = await t.createUser('owner@example.com');
  const structure = await t.createStructure(owner.token, 'personal');
  const minted = await t.server.inject({ method: 'POST', url: `/api/org/structures/${structure.id}/agents/${structure.agents[0]!.role_id}/mcp-key`, headers: t.auth(owner.token) });
  key = minted.json();
});

afterAll(async () => {
  gated.release();
  await t.close();
});

describe('2025-revision sessions', () => {
  it('1,000 abandoned sessions: the registry holds at most the cap and the heap stays flat', async () => {
    for (let i = 0; i < 50; i++) expect((await initialize()).status).toBe(200); // warm up
    const before = heapMiB();
    for (let batch = 0; batch < 50; batch++) {
      const responses = await Promise.all(Array.from({ length: 20 }, () => initialize()));
      for (const response of responses) expect(response.status).toBe(200);
      expect(t.mcp.sessionCount(key.id)).toBeLessThanOrEqual(CAP);
    }
    const after = heapMiB();
    expect(t.mcp.sessionCount(key.id)).toBe(CAP);
    expect(t.app.connections.count(key.id)).toBe(CAP);
    // Before sessions were freed, 1,000 sessions held ~125 KiB each (~120 MiB).
    console.log(`mcp sessions: heap ${before.toFixed(1)} MiB before, ${after.toFixed(1)} MiB after 1,000 abandoned sessions (${(after - before).toFixed(1)} MiB)`);
    expect(after - before).toBeLessThan(12);
  }, 180_000);

  it('idle sessions expire; a session with a turn in flight does not; an expired id is 404', async () => {
    now += 1000;
    const client = new ClientV2({ name: 'busy', version: '1' });
    const transport = new TransportV2(new URL('/mcp', t.url), { requestInit: { headers: { authorization: `Bearer ${key.token}` } } });
    await client.connect(transport);
    const busyId = transport.sessionId!;
    const call = client.callTool({ name: 'do', arguments: { message: 'gated long turn' } });
    await gated.waiting();

    now += 61_000;
    expect(await t.mcp.sweep()).toBe(CAP - 1);
    expect(t.mcp.sessionCount(key.id)).toBe(1);

    gated.release();
    expect((await call).structuredContent).toMatchObject({ status: 'complete' });
    now += 61_000;
    expect(await t.mcp.sweep()).toBe(1);
    expect(t.mcp.sessionCount()).toBe(0);
    expect(t.app.connections.count(key.id)).toBe(0);
    const stale = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: { ...headers(), 'mcp-session-id': busyId, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
    await client.close().catch(() => undefined);
  });

  it('2026-07-28 keeps no session', async () => {
    const sessions = t.mcp.sessionCount();
    const connections = t.app.connections.count(key.id);
    const client = new ClientV2({ name: 'modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(new URL('/mcp', t.url), { requestInit: { headers: { authorization: `Bearer ${key.token}` } } }));
    for (let i = 0; i < 20; i++) await client.listTools();
    expect(t.mcp.sessionCount()).toBe(sessions);
    expect(t.app.connections.count(key.id)).toBe(connections);
    await client.close();
  });
});
