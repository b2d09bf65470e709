/**
 * `org mcp --url … --key …` (API.md §7): the stdio bridge spawned as an MCP client
 * would (needs `npm run build`), driven by the official SDK client over
 * StdioClientTransport: the tools and their schemas, each tool proxied to the HTTP API,
 * progress notifications during `do`, tool errors, and a refused key.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../src/app.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { notifier } from './helpers/notifier.js';
import { lastProgressToken, recordWire, type WireLog } from './helpers/wire-progress.js';
import { createWorkRuntime } from './helpers/work-runtime.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'org.js');

describe('org mcp (stdio bridge)', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structure: { id: string; agents: { id: string; role_id: string; parent_id: string | null }[] };
  let roleId: string;
  let client: Client;
  let wire: WireLog;
  let keyId: string;
  let stderr = '';

  const spawnBridge = (args: string[], env: Record<string, string> = {}) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', ...args],
      env: { ...getDefaultEnvironment(), ...env },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return transport;
  };

  beforeAll(async () => {
    t = await startInstance({ listen: true, deps: { runtime: () => createWorkRuntime() } });
    owner = await t.createUser('owner@example.com');
    structure = await t.createStructure(owner.token, 'exec-team');
    roleId = structure.agents[1]!.role_id;
    const minted = await t.server.inject({
      method: 'POST',
      url: `/api/org/structures/${structure.id}/agents/${roleId}/mcp-key`,
      headers: t.auth(owner.token),
      payload: { label: 'desktop' },
    });
    const key = minted.json<{ token: string; id: string }>();
    keyId = key.id;
    await t.app.skills.upsert({
      slug: 'plan-quarterly-budget',
      frontmatter: {
        type: 'skill',
        name: 'Plan the quarterly budget',
        category: 'finance',
        difficulty: 'medium',
        tags: ['budget', 'planning'],
        status: 'complete',
        summary: 'Build the quarterly budget from last quarter’s actuals.',
        learned_by: 'system',
        tool_url: null,
      },
      body: '## [actuals] Step 1: Pull the actuals\n- Export last quarter.\n',
    });
    client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    // The key comes from the environment here; the URL from the flag.
    const transport = spawnBridge(['--url', t.url], { ORG_MCP_KEY: key.token });
    await client.connect(transport);
    wire = recordWire(transport);
  });
  afterAll(async () => {
    await client?.close();
    await t.close();
  });

  it('lists the same five tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['do', 'list_peers', 'list_skills', 'read_skill', 'search_skills']);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    expect(stderr).toContain(`serving node ${roleId}`);
  });

  it('do streams the turn through POST /api/org/chat/message, with progress per event', async () => {
    const result = await client.callTool({ name: 'do', arguments: { message: 'draft the budget memo' } }, undefined, {
      onprogress: () => undefined,
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      summary: 'Done: draft the budget memo',
      artifacts: ['report.md'],
      artifact_urls: [`${t.url}/api/org/structures/${structure.id}/agents/${roleId}/artifacts/report.md`],
    });
    // One notification per event, in order, all before the result.
    const seen = wire.of(lastProgressToken(wire));
    expect(seen.map((entry) => entry.split(':')[0])).toEqual(['1', '2', '3', '4', 'response']);
    expect(seen[3]).toBe('4: complete: Done: draft the budget memo');

    const failed = await client.callTool({ name: 'do', arguments: { message: 'make it fail' } });
    expect(failed.isError).toBe(true);
    expect((failed.content as { text: string }[])[0]!.text).toContain('the tool broke');
  });

  it('list_skills, search_skills, read_skill and list_peers proxy the HTTP API', async () => {
    const listed = await client.callTool({ name: 'list_skills', arguments: {} });
    expect((listed.structuredContent as { skills: { slug: string }[] }).skills.map((skill) => skill.slug)).toContain('plan-quarterly-budget');

    const searched = await client.callTool({ name: 'search_skills', arguments: { query: 'quarterly budget planning' } });
    expect((searched.structuredContent as { matches: { slug: string }[] }).matches[0]?.slug).toBe('plan-quarterly-budget');

    const read = await client.callTool({ name: 'read_skill', arguments: { slug: 'plan-quarterly-budget' } });
    expect(read.structuredContent).toMatchObject({ slug: 'plan-quarterly-budget', steps: [{ id: 'actuals', n: 1, title: 'Pull the actuals' }] });

    const missing = await client.callTool({ name: 'read_skill', arguments: { slug: 'nothing-here' } });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]!.text).toMatch(/not found/);

    const peers = await client.callTool({ name: 'list_peers', arguments: {} });
    const body = peers.structuredContent as { self: { role_id: string }; peers: { role_id: string; parent?: string }[] };
    expect(body.self).toMatchObject({ role_id: roleId, state: 'idle', parent: expect.any(String) });
    expect(body.peers).toHaveLength(structure.agents.length - 1);
    expect(body.peers.find((peer) => peer.parent === undefined)?.role_id).toBe(structure.agents[0]!.role_id);
  });

  it('revoking the key mid-turn ends the running do with a tool error; later calls fail with 401', async () => {
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
      url: `/api/org/structures/${structure.id}/agents/${roleId}/mcp-key/${keyId}`,
      headers: t.auth(owner.token),
    });
    expect(revoked.statusCode).toBe(204);
    const result = await call;
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^key revoked; the turn goes on \(run [0-9a-f-]{36}\)$/);
    const after = await client.callTool({ name: 'list_peers', arguments: {} });
    expect(after.isError).toBe(true);
    expect((after.content as { text: string }[])[0]!.text).toMatch(/unknown or revoked/);
  });

  it('a revoked or unknown key stops the bridge before it serves', async () => {
    let bridgeErr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--url', t.url, '--key', 'org_mcp_0000000000000000000000000000000000'],
      env: getDefaultEnvironment(),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      bridgeErr += chunk.toString();
    });
    const refused = new Client({ name: 'refused', version: '1' });
    await expect(refused.connect(transport)).rejects.toThrow();
    await refused.close().catch(() => undefined);
    expect(bridgeErr).toMatch(/unknown or revoked/);
  });
});
