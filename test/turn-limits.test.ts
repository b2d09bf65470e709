/**
 * What one sender can make a node and a structure hold, on a real listening server: a
 * node's open turns are capped (429 with Retry-After past `--max-queued-turns`, on the
 * streaming and sync endpoints, MCP `do` and the inbound channel alike, and a place comes
 * back when a turn ends), and a structure's artifact shelves have a quota (413 for an
 * upload larger than what is left, 507 once they are full; nothing of a refused message is
 * stored).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundHeaders } from '../src/core/inbound/index.js';
import { createGatedRuntime, type GatedRuntime } from './helpers/gated-runtime.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

const SECRET = 'turn-limits-inbound-secret-0123';
const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

async function post(t: TestInstance, path: string, body: unknown, extra: Record<string, string> = headers): Promise<Response> {
  return fetch(`${t.url}${path}`, { method: 'POST', headers: extra, body: JSON.stringify(body) });
}

describe("a node's queue is capped", () => {
  let t: TestInstance;
  let gated: GatedRuntime;
  let structureId: string;
  beforeAll(async () => {
    gated = createGatedRuntime();
    t = await startInstance({ listen: true, config: { maxQueuedTurns: 3, inboundSecret: SECRET }, deps: { runtime: () => gated.runtime } });
    structureId = ((await t.createStructure(ADMIN_TOKEN, 'exec-team', 'Queue')) as unknown as { id: string }).id;
  });
  afterAll(async () => {
    gated.release();
    await t?.close();
  });

  it('past the cap every surface answers 429 with Retry-After, and a place comes back when a turn ends', async () => {
    const message = (text: string, roleId = 'exec-cfo') => ({ structure_id: structureId, role_id: roleId, message: text });
    // Three open turns: one running (held by the gate), two waiting behind it.
    const streams: Response[] = [];
    for (let i = 0; i < 3; i++) streams.push(await post(t, '/api/org/chat/message', message(`gated ${i}`)));
    expect(streams.map((response) => response.status)).toEqual([200, 200, 200]);
    await gated.waiting(1);

    const refusedStream = await post(t, '/api/org/chat/message', message('one more'));
    expect(refusedStream.status).toBe(429);
    expect(refusedStream.headers.get('retry-after')).toBe('10');
    expect(((await refusedStream.json()) as { code: string; detail: string })).toMatchObject({ code: 'rate_limited', detail: expect.stringMatching(/exec-cfo already has 3 turns running or waiting \(at most 3\)/) });
    const refusedSync = await post(t, '/api/org/chat/message/sync', message('one more'));
    expect(refusedSync.status).toBe(429);
    const inboundBody = JSON.stringify({ structure_id: structureId, role_id: 'exec-cfo', text: 'one more', sender: 'chat-bot' });
    const refusedInbound = await fetch(`${t.url}/api/org/inbound/message`, { method: 'POST', headers: { 'content-type': 'application/json', ...inboundHeaders(SECRET, inboundBody) }, body: inboundBody });
    expect(refusedInbound.status).toBe(429);
    const key = (await (await post(t, `/api/org/structures/${structureId}/agents/exec-cfo/mcp-key`, { label: 'queue' })).json()) as { token: string };
    const client = new Client({ name: 'turn-limits', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.url), { requestInit: { headers: { authorization: `Bearer ${key.token}` } } }));
    try {
      const refusedDo = await client.callTool({ name: 'do', arguments: { message: 'one more' } });
      expect(refusedDo.isError).toBe(true);
      expect((refusedDo.content as { text: string }[])[0]!.text).toMatch(/already has 3 turns running or waiting/);
    } finally {
      await client.close();
    }
    // Another node is not affected.
    expect((await post(t, '/api/org/chat/message/sync', message('hello', 'exec-cto'))).status).toBe(200);
    // Nothing of the refused messages was stored.
    const history = (await (await fetch(`${t.url}/api/org/chat/history?structure_id=${structureId}&role_id=exec-cfo&limit=50`, { headers })).json()) as { text: string; sender: string }[];
    expect(history.filter((entry) => entry.sender === 'user').map((entry) => entry.text).sort()).toEqual(['gated 0', 'gated 1', 'gated 2']);

    // Each waiting turn runs in its turn once the one before it is let go.
    for (const stream of streams) {
      await gated.waiting(1);
      gated.release();
      await stream.text();
    }
    expect((await post(t, '/api/org/chat/message/sync', message('after'))).status).toBe(200);
  });
});

describe("a structure's artifact shelves have a quota", () => {
  let t: TestInstance;
  let structureId: string;
  beforeAll(async () => {
    // Its turns write a small report artifact each (what an agent's own files look like).
    t = await startInstance({ listen: true, config: { artifactQuotaBytes: 3 * 1024 * 1024 }, deps: { runtime: () => createGatedRuntime().runtime } });
    structureId = ((await t.createStructure(ADMIN_TOKEN, 'exec-team', 'Quota')) as unknown as { id: string }).id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const attachment = (name: string, mib: number) => ({ name, content_base64: Buffer.alloc(mib * 1024 * 1024, 7).toString('base64'), content_type: 'application/octet-stream' });
  const send = (roleId: string, attachments: ReturnType<typeof attachment>[]) =>
    post(t, '/api/org/chat/message/sync', { structure_id: structureId, role_id: roleId, message: 'file these', attachments });

  it('across the nodes of a structure: 413 for an upload over what is left, 507 once full, and nothing of a refused message stored', async () => {
    expect((await send('exec-cfo', [attachment('a.bin', 1), attachment('b.bin', 1)])).status).toBe(200);
    // Another node of the same structure shares the quota: 2 MiB more do not fit in what is left.
    const over = await send('exec-cto', [attachment('c.bin', 1), attachment('d.bin', 1)]);
    expect(over.status).toBe(413);
    expect(((await over.json()) as { code: string; detail: string })).toMatchObject({ code: 'payload_too_large', detail: expect.stringMatching(/do not fit in what is left of this structure's shelves .*--artifact-quota/) });
    const ctoShelf = await fetch(`${t.url}/api/org/structures/${structureId}/agents/exec-cto/artifacts`, { headers });
    expect(((await ctoShelf.json()) as { artifacts: unknown[] }).artifacts).toEqual([]);
    // Replacing an artifact frees its room; the run reports written by the runtime count too.
    expect((await send('exec-cfo', [attachment('a.bin', 1)])).status).toBe(200);
    const shelfBytes = async () => {
      let total = 0;
      for (const role of ['exec-cfo', 'exec-cto']) {
        const listed = (await (await fetch(`${t.url}/api/org/structures/${structureId}/agents/${role}/artifacts`, { headers })).json()) as { artifacts: { size: number }[] };
        for (const info of listed.artifacts) total += info.size;
      }
      return total;
    };
    expect(await shelfBytes()).toBeLessThanOrEqual(3 * 1024 * 1024);
    // Filled to the brim by hand, the next upload finds the shelves full.
    const left = 3 * 1024 * 1024 - (await shelfBytes());
    await t.app.chat.shelfOf(structureId, (await t.app.nodes.record(structureId, 'exec-coo')).id).write('fill.bin', Buffer.alloc(left), 'application/octet-stream');
    const full = await send('exec-coo', [attachment('e.bin', 1)]);
    expect(full.status).toBe(507);
    expect(((await full.json()) as { code: string; detail: string })).toMatchObject({ code: 'insufficient_storage', detail: expect.stringMatching(/shelves of this structure are full \(3\.0 MiB of 3\.0 MiB\)/) });
    // An agent's own artifact is refused the same way: the turn ends with an error saying so.
    const turn = (await (await send('exec-coo', [])).json()) as { events: { type: string; content: { message?: string } }[] };
    expect(turn.events.at(-1)).toMatchObject({ type: 'error', content: { message: expect.stringMatching(/full/) } });
    const files = await readdir(join(t.home, '.org', 'structures', structureId, 'nodes', (await t.app.nodes.record(structureId, 'exec-coo')).id, 'artifacts'));
    expect(files).toEqual(['fill.bin']);
  });
});
