/**
 * MCP over Streamable HTTP at /mcp (API.md §7, §3) with the official SDK client: the
 * node key as bearer, the tools with their schemas, each tool called, progress
 * notifications during `do`, tool errors, 401/403 before any session, and a key revoked
 * mid-session ending the session at once.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { notifier } from './helpers/notifier.js';
import { lastProgressToken, recordWire } from './helpers/wire-progress.js';
import { createWorkRuntime } from './helpers/work-runtime.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

interface Key {
  id: string;
  token: string;
}

describe('MCP over Streamable HTTP', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structure: { id: string; agents: { id: string; role_id: string; parent_id: string | null }[] };
  let roleId: string;
  let key: Key;
  const clients: Client[] = [];

  const mint = async (role: string, label: string): Promise<Key> => {
    const response = await t.server.inject({
      method: 'POST',
      url: `/api/org/structures/${structure.id}/agents/${role}/mcp-key`,
      headers: t.auth(owner.token),
      payload: { label },
    });
    expect(response.statusCode).toBe(201);
    return response.json<Key>();
  };

  const connect = async (token: string) => {
    const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', t.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  };

  const rawPost = (headers: Record<string, string>, body: unknown = INITIALIZE) =>
    fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    t = await startInstance({ listen: true, deps: { runtime: () => createWorkRuntime() } });
    owner = await t.createUser('owner@example.com');
    structure = await t.createStructure(owner.token, 'exec-team');
    roleId = structure.agents[1]!.role_id;
    key = await mint(roleId, 'laptop');
    await t.app.skills.upsert({
      slug: 'chase-overdue-invoices',
      frontmatter: {
        type: 'skill',
        name: 'Chase overdue invoices',
        category: 'finance',
        difficulty: 'low',
        tags: ['collections', 'invoices'],
        status: 'complete',
        summary: 'Collect overdue customer payments with staged reminders.',
        learned_by: 'system',
        tool_url: null,
      },
      body: '## [pull-aging] Step 1: Pull the aging report\n- Group overdue invoices by age.\n\n## [send-reminders] Step 2: Send reminders\n- Start friendly.\n',
    });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t.close();
  });

  it('lists the five tools, each with an input and an output schema', async () => {
    const { client } = await connect(key.token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['do', 'list_peers', 'list_skills', 'read_skill', 'search_skills']);
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('do')!.inputSchema.required).toEqual(['message']);
    expect(Object.keys(byName.get('do')!.inputSchema.properties ?? {}).sort()).toEqual(['attachments', 'message']);
    expect(Object.keys(byName.get('do')!.outputSchema!.properties ?? {}).sort()).toEqual(['artifact_urls', 'artifacts', 'learned', 'run_id', 'status', 'summary']);
    expect(byName.get('search_skills')!.inputSchema.required).toEqual(['query']);
    expect(byName.get('read_skill')!.inputSchema.required).toEqual(['slug']);
    expect(byName.get('list_peers')!.outputSchema!.required).toEqual(expect.arrayContaining(['self', 'peers']));
  });

  it('do: runs a turn for the key’s node, with a progress notification per event, and returns summary and artifacts', async () => {
    const { client, transport } = await connect(key.token);
    const wire = recordWire(transport);
    const result = await client.callTool(
      {
        name: 'do',
        arguments: {
          message: 'prepare the cash report',
          attachments: [{ name: 'aging.csv', content_base64: Buffer.from('customer,days\nacme,45\n').toString('base64'), content_type: 'text/csv' }],
        },
      },
      undefined,
      { onprogress: () => undefined },
    );
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { run_id: string; summary: string; artifacts: string[]; artifact_urls: string[] };
    expect(structured.summary).toBe('Done: prepare the cash report');
    expect(structured.artifacts).toEqual(['report.md']);
    expect(structured.artifact_urls).toEqual([`${t.url}/api/org/structures/${structure.id}/agents/${roleId}/artifacts/report.md`]);
    const content = result.content as { type: string; text?: string; uri?: string; name?: string }[];
    expect(content[0]!.text).toContain('Done: prepare the cash report');
    expect(content[1]).toMatchObject({ type: 'resource_link', uri: 'org://artifacts/report.md', name: 'report.md' });

    // thought, milestone, text, complete: one notification each, in order, all before the result.
    expect(wire.of(lastProgressToken(wire))).toEqual([
      '1: thought: reading: prepare the cash report',
      '2: milestone: Gathered the inputs',
      '3: text: Report written.',
      '4: complete: Done: prepare the cash report',
      'response',
    ]);

    // The artifact downloads with the key; it names the staged attachment.
    const download = await fetch(structured.artifact_urls[0]!, { headers: { authorization: `Bearer ${key.token}` } });
    expect(download.status).toBe(200);
    expect(await download.text()).toContain('aging.csv: customer,days');

    // The turn is in the node's history, its user message marked as coming from MCP.
    const history = await t.server.inject({
      method: 'GET',
      url: `/api/org/chat/history?structure_id=${structure.id}&role_id=${roleId}&limit=2`,
      headers: t.auth(owner.token),
    });
    const [agent, user] = history.json<{ sender: string; run_id: string; origin?: string; text: string; status: string }[]>();
    expect(user).toMatchObject({ sender: 'user', run_id: structured.run_id, origin: 'mcp:laptop', text: 'prepare the cash report', author: { kind: 'node_key', label: 'laptop' } });
    expect(agent).toMatchObject({ sender: 'agent', run_id: structured.run_id, status: 'complete' });
  });

  it('do: an error event becomes a tool error carrying its message', async () => {
    const { client } = await connect(key.token);
    const result = await client.callTool({ name: 'do', arguments: { message: 'please fail' } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/the turn failed: the tool broke \(run [0-9a-f-]{36}\)/);
  });

  it('do: bad attachments are a tool error, not a crash', async () => {
    const { client } = await connect(key.token);
    const result = await client.callTool({ name: 'do', arguments: { message: 'x', attachments: [{ name: 'a.txt', content_base64: '***' }] } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toContain('not valid base64');
  });

  it('list_skills, search_skills and read_skill read the library as the key’s structure sees it', async () => {
    const { client } = await connect(key.token);
    const listed = await client.callTool({ name: 'list_skills', arguments: {} });
    const skills = (listed.structuredContent as { skills: { slug: string; status: string }[] }).skills;
    expect(skills.map((skill) => skill.slug)).toContain('chase-overdue-invoices');
    expect(JSON.parse((listed.content as { text: string }[])[0]!.text)).toEqual(listed.structuredContent);

    const searched = await client.callTool({ name: 'search_skills', arguments: { query: 'customers paying invoices late', limit: 3 } });
    const matches = (searched.structuredContent as { matches: { slug: string; score: number; reason: string }[] }).matches;
    expect(matches[0]).toMatchObject({ slug: 'chase-overdue-invoices', score: expect.any(Number), reason: expect.any(String) });

    const read = await client.callTool({ name: 'read_skill', arguments: { slug: 'chase-overdue-invoices' } });
    expect(read.structuredContent).toMatchObject({
      slug: 'chase-overdue-invoices',
      frontmatter: { name: 'Chase overdue invoices', status: 'complete' },
      steps: [
        { id: 'pull-aging', n: 1, title: 'Pull the aging report' },
        { id: 'send-reminders', n: 2, title: 'Send reminders' },
      ],
    });
    expect((read.structuredContent as { body: string }).body).toContain('Group overdue invoices');

    const missing = await client.callTool({ name: 'read_skill', arguments: { slug: 'no-such-skill' } });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]!.text).toContain('not found');

    const badLimit = await client.callTool({ name: 'search_skills', arguments: { query: 'x', limit: 500 } });
    expect(badLimit.isError).toBe(true);
  });

  it('list_peers returns the other nodes with label, state and parent role_id', async () => {
    const { client } = await connect(key.token);
    const result = await client.callTool({ name: 'list_peers', arguments: {} });
    const { self, peers } = result.structuredContent as { self: { role_id: string; state: string; parent?: string }; peers: { role_id: string; label: string; state: string; parent?: string }[] };
    expect(self.role_id).toBe(roleId);
    // The caller's own node says its state and parent too.
    const own = structure.agents.find((node) => node.role_id === roleId)!;
    expect(self).toEqual({ role_id: roleId, label: expect.any(String), state: 'idle', parent: structure.agents.find((node) => node.id === own.parent_id)!.role_id });
    expect(peers).toHaveLength(structure.agents.length - 1);
    expect(peers.map((peer) => peer.role_id)).not.toContain(roleId);
    const roleById = new Map(structure.agents.map((node) => [node.id, node.role_id]));
    for (const peer of peers) {
      const node = structure.agents.find((candidate) => candidate.role_id === peer.role_id)!;
      expect(peer.parent).toBe(node.parent_id ? roleById.get(node.parent_id) : undefined);
      expect(['idle', 'working']).toContain(peer.state);
      expect(peer.label).toEqual(expect.any(String));
    }
  });

  it('401 problem+json without a key, with an unknown key; 403 for a user token or the administrator', async () => {
    const none = await rawPost({});
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.json()).toMatchObject({ status: 401, code: 'unauthorized' });

    const unknown = await rawPost({ authorization: 'Bearer org_mcp_0000000000000000000000000000000000' });
    expect(unknown.status).toBe(401);

    const user = await rawPost({ authorization: `Bearer ${owner.token}` });
    expect(user.status).toBe(403);
    expect(await user.json()).toMatchObject({ code: 'forbidden' });
    expect((await rawPost({ authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(403);

    // The SDK client fails to connect without the key.
    const client = new Client({ name: 'no-key', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.url)))).rejects.toThrow();
  });

  it('a request without a session (other than initialize) is refused; a session is bound to its key', async () => {
    const noSession = await rawPost({ authorization: `Bearer ${key.token}` }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(noSession.status).toBe(400);

    const { transport } = await connect(key.token);
    const other = await mint(roleId, 'other');
    const hijack = await rawPost(
      { authorization: `Bearer ${other.token}`, 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    );
    expect(hijack.status).toBe(404);
  });

  it('revoking the key mid-session ends its sessions at once: the next call fails and the session is gone', async () => {
    const revocable = await mint(roleId, 'revocable');
    const { client, transport } = await connect(revocable.token);
    const before = await client.callTool({ name: 'list_peers', arguments: {} });
    expect(before.isError).toBeFalsy();
    expect(t.app.connections.count(revocable.id)).toBe(1);
    const sessionId = transport.sessionId!;

    const revoked = await t.server.inject({
      method: 'DELETE',
      url: `/api/org/structures/${structure.id}/agents/${roleId}/mcp-key/${revocable.id}`,
      headers: t.auth(owner.token),
    });
    expect(revoked.statusCode).toBe(204);
    expect(t.app.connections.count(revocable.id)).toBe(0);

    await expect(client.callTool({ name: 'list_peers', arguments: {} })).rejects.toThrow(/401|nauthorized/);

    // The session no longer exists, whatever key presents it.
    const fresh = await mint(roleId, 'fresh');
    const reuse = await rawPost(
      { authorization: `Bearer ${fresh.token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
    );
    expect(reuse.status).toBe(404);
    const stale = await rawPost(
      { authorization: `Bearer ${revocable.token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 5, method: 'tools/list' },
    );
    expect(stale.status).toBe(401);
  });

  it('revoking the key during a running do answers the call before the turn ends, with a tool error; the turn itself goes on', async () => {
    const revocable = await mint(roleId, 'mid-turn');
    const { client } = await connect(revocable.token);
    const progress: Progress[] = [];
    const progressed = notifier();
    const call = client.callTool({ name: 'do', arguments: { message: 'a slow job' } }, undefined, {
      onprogress: (update) => {
        progress.push(update);
        progressed.notify();
      },
    });
    await progressed.until(() => progress.length > 0, 'the first progress notification');
    const revoked = await t.server.inject({
      method: 'DELETE',
      url: `/api/org/structures/${structure.id}/agents/${roleId}/mcp-key/${revocable.id}`,
      headers: t.auth(owner.token),
    });
    expect(revoked.statusCode).toBe(204);
    const result = await call;
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toMatch(/^key revoked; the turn goes on \(run [0-9a-f-]{36}\)$/);
    const runId = /\(run ([0-9a-f-]{36})\)/.exec(text)![1]!;
    // Answered before the turn ended: the run is still going.
    const run = t.app.chat.run(runId);
    expect(run?.finished).toBe(false);
    expect(t.app.connections.count(revocable.id)).toBe(0);
    await expect(client.listTools()).rejects.toThrow();
    // The turn is not cancelled by the lost session: it completes in the history.
    await run!.done;
    const history = await t.server.inject({ method: 'GET', url: `/api/org/chat/history?structure_id=${structure.id}&role_id=${roleId}&limit=1`, headers: t.auth(owner.token) });
    expect(history.json<{ status: string; summary: string | null }[]>()[0]).toMatchObject({ status: 'complete', summary: 'Done: a slow job' });
  });

  it('closing the server ends open sessions instead of waiting on them', async () => {
    const other = await startInstance({ listen: true, deps: { runtime: () => createWorkRuntime() } });
    const user = await other.createUser('o@example.com');
    const detail = await other.createStructure(user.token, 'personal');
    const minted = await other.server.inject({
      method: 'POST',
      url: `/api/org/structures/${detail.id}/agents/${detail.agents[0]!.role_id}/mcp-key`,
      headers: other.auth(user.token),
    });
    const client = new Client({ name: 'left-open', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', other.url), { requestInit: { headers: { authorization: `Bearer ${minted.json<Key>().token}` } } }),
    );
    await client.listTools();
    // Were close() to wait on the open session, it would never return and the test would fail.
    await other.close();
    await client.close().catch(() => undefined);
  });

  it('DELETE /mcp ends a session', async () => {
    const { client, transport } = await connect(key.token);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    const after = await rawPost(
      { authorization: `Bearer ${key.token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 6, method: 'tools/list' },
    );
    expect(after.status).toBe(404);
    await client.close();
  });
});
