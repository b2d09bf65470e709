/**
 * MCP at both revisions on one /mcp endpoint, with real clients: the SDK v2 client
 * pinned to 2026-07-28 and at 2025-11-25, the SDK 1.x client (2025 revisions, tasks);
 * portable tool schemas, readOnlyHint, structuredContent with resource_links readable
 * with resources/read, list_peers without the caller, the Skills extension serving a
 * skill with a script file, a cancelled do cancelling its run (both revisions),
 * progress while a turn is quiet, `do` as a task with a dropped connection and
 * tasks/cancel, resumable numbered events at 2025-11-25, and the 401/Origin rules.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGatedRuntime, type GatedRuntime } from './helpers/gated-runtime.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

interface Key {
  id: string;
  token: string;
}

let t: TestInstance;
let gated: GatedRuntime;
let owner: { token: string; id: string };
let structure: { id: string; agents: { id: string; role_id: string; label: string; parent_id: string | null }[] };
let roleId: string;
let key: Key;
const closers: (() => Promise<unknown>)[] = [];

const mint = async (role: string, label: string): Promise<Key> => {
  const response = await t.server.inject({ method: 'POST', url: `/api/org/structures/${structure.id}/agents/${role}/mcp-key`, headers: t.auth(owner.token), payload: { label } });
  expect(response.statusCode).toBe(201);
  return response.json<Key>();
};

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function v2(era: 'modern' | 'legacy', token = key.token, options: { tasks?: boolean; fetch?: typeof fetch } = {}) {
  const client = new ClientV2(
    { name: 'v2-test', version: '1' },
    {
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {}),
      ...(options.tasks ? { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } : {}),
    },
  );
  await client.connect(new TransportV2(new URL('/mcp', t.url), { requestInit: { headers: auth(token) }, ...(options.fetch ? { fetch: options.fetch } : {}) }));
  closers.push(() => client.close());
  return client;
}

async function v1(token = key.token) {
  const client = new ClientV1({ name: 'v1-test', version: '1' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } } as never });
  const transport = new TransportV1(new URL('/mcp', t.url), { requestInit: { headers: auth(token) } });
  await client.connect(transport);
  closers.push(() => client.close());
  return { client, transport };
}

const history = async () =>
  (await t.server.inject({ method: 'GET', url: `/api/org/chat/history?structure_id=${structure.id}&role_id=${roleId}&limit=10`, headers: t.auth(owner.token) })).json<
    { sender: string; run_id: string; status: string; summary: string | null; events: { type: string; content: unknown }[] }[]
  >();

/** Reads until `done` holds, as a polling client does (no deadline: the test's timeout bounds it). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Scans a JSON Schema for constructs strict clients reject. */
function portabilityProblems(schema: unknown, path = '$'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  if (Array.isArray(node.type)) problems.push(`${path}: type is an array`);
  if (node.additionalProperties !== undefined && typeof node.additionalProperties === 'object' && Object.keys(node.additionalProperties as object).length === 0) {
    problems.push(`${path}: empty additionalProperties`);
  }
  for (const [name, value] of Object.entries(node)) {
    if (value && typeof value === 'object') problems.push(...portabilityProblems(value, `${path}.${name}`));
  }
  return problems;
}

beforeAll(async () => {
  gated = createGatedRuntime();
  t = await startInstance({ listen: true, deps: { runtime: () => gated.runtime }, mcp: { progressIntervalMs: 40 } });
  owner = await t.createUser('owner@example.com');
  structure = await t.createStructure(owner.token, 'exec-team');
  roleId = structure.agents[1]!.role_id;
  key = await mint(roleId, 'laptop');
  await t.app.skills.upsert({
    slug: 'chase-overdue-invoices',
    frontmatter: { type: 'skill', name: 'Chase overdue invoices', status: 'complete', summary: 'Collect overdue customer payments.', tags: ['invoices'], triggers: ['a customer pays late'] },
    body: '## [pull-aging] Step 1: Pull the aging report\nRun `scripts/aging.sh`.\n',
  });
  await t.app.skills.putFiles('chase-overdue-invoices', new Map([['scripts/aging.sh', new TextEncoder().encode('#!/bin/sh\necho "aging report"\n')]]));
  await t.app.skills.upsert({ slug: 'half-done', frontmatter: { type: 'skill', name: 'Half done', status: 'draft' }, body: 'x\n' });
});

afterAll(async () => {
  gated.release();
  for (const close of closers) await close().catch(() => undefined);
  await t.close();
});

describe.each([
  ['2026-07-28', 'modern'],
  ['2025-11-25', 'legacy'],
] as const)('SDK v2 client at %s', (revision, era) => {
  it('lists five tools with portable schemas, readOnlyHint on the read-only ones, and the task support of the revision', async () => {
    const client = await v2(era);
    expect(client.getProtocolEra()).toBe(era);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['do', 'list_peers', 'list_skills', 'read_skill', 'search_skills']);
    for (const tool of tools) {
      expect(portabilityProblems(tool.inputSchema), tool.name).toEqual([]);
      expect(portabilityProblems(tool.outputSchema), tool.name).toEqual([]);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(tool.name !== 'do');
    }
  });

  it('do returns structuredContent and resource_links that resources/read returns with the same key; list_peers leaves out the caller', async () => {
    const client = await v2(era);
    const result = await client.callTool({ name: 'do', arguments: { message: `quick report ${revision}` } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'complete', summary: `Done: quick report ${revision}`, artifacts: ['report.md'], learned: [] });
    const link = (result.content as { type: string; uri?: string }[]).find((block) => block.type === 'resource_link')!;
    expect(link.uri).toBe('org://artifacts/report.md');
    const read = await client.readResource({ uri: link.uri! });
    expect((read.contents[0] as { text: string }).text).toContain(`Request: quick report ${revision}`);

    const peers = await client.callTool({ name: 'list_peers', arguments: {} });
    const { self, peers: others } = peers.structuredContent as { self: { role_id: string }; peers: { role_id: string }[] };
    expect(self.role_id).toBe(roleId);
    expect(others.map((peer) => peer.role_id)).not.toContain(roleId);
    expect(others).toHaveLength(structure.agents.length - 1);
  });

  it('the Skills extension lists the complete skills and reads SKILL.md and a script file', async () => {
    const client = await v2(era);
    const skills = new SkillsClient(client);
    expect(skills.supported).toBe(true);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    const entry = listing.skills.find((skill) => skill.uri === 'skill://chase-overdue-invoices/SKILL.md')!;
    expect(entry).toBeDefined();
    expect(listing.skills.some((skill) => skill.uri.includes('half-done'))).toBe(false);
    const md = await skills.read(entry);
    expect(md.verified).toBe(true);
    expect(md.frontmatter).toMatchObject({ name: 'chase-overdue-invoices', description: 'Collect overdue customer payments. Use when: a customer pays late.' });
    const script = await skills.read(entry, 'scripts/aging.sh');
    expect(script.verified).toBe(true);
    expect(script.text).toContain('aging report');
  });
});

describe('learning', () => {
  it('do reports only the skill the service stored (a refused draft is not reported)', async () => {
    const client = await v2('modern');
    const learned = await client.callTool({ name: 'do', arguments: { message: 'learn how to file expenses' } });
    expect(learned.structuredContent).toMatchObject({ status: 'complete', learned: [{ slug: 'file-expenses', name: 'File expenses' }] });
    expect((await t.app.skills.get('file-expenses', structure.id))?.frontmatter.status).toBe('draft');
    // A turn that used a skill (explicitly) does not learn: the claim is refused, and not reported.
    const refused = await client.callTool({ name: 'do', arguments: { message: '/chase-overdue-invoices and learn' } });
    expect(refused.structuredContent).toMatchObject({ status: 'complete', learned: [] });
  });
});

describe('cancellation and progress', () => {
  it('2025 (SDK 1.x): aborting callTool sends notifications/cancelled and cancels the run; the node is free at once', async () => {
    const { client } = await v1();
    const controller = new AbortController();
    const call = client.callTool({ name: 'do', arguments: { message: 'gated cancel v1' } }, undefined, { signal: controller.signal });
    await gated.waiting();
    const [running] = await history();
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    const ended = await until(history, (messages) => messages.find((m) => m.run_id === running!.run_id && m.sender === 'agent')?.status === 'error');
    const agent = ended.find((m) => m.run_id === running!.run_id && m.sender === 'agent')!;
    expect(agent.events.at(-1)).toMatchObject({ type: 'error', content: { message: 'cancelled' } });
    expect(gated.aborted).toContain(running!.run_id);
    const next = await client.callTool({ name: 'do', arguments: { message: 'after cancel' } });
    expect(next.structuredContent).toMatchObject({ status: 'complete' });
  });

  it('2026-07-28 (SDK v2): aborting the call closes its stream and cancels the run', async () => {
    const client = await v2('modern');
    const controller = new AbortController();
    const call = client.callTool({ name: 'do', arguments: { message: 'gated cancel v2' } }, { signal: controller.signal });
    await gated.waiting();
    const [running] = await history();
    controller.abort();
    await expect(call).rejects.toThrow();
    await until(history, (messages) => messages.find((m) => m.run_id === running!.run_id && m.sender === 'agent')?.status === 'error');
    expect(gated.aborted).toContain(running!.run_id);
  });

  it('a quiet turn still sends progress (at least every progress interval) until it ends', async () => {
    const client = await v2('legacy');
    const messages: string[] = [];
    let enough: () => void = () => undefined;
    const three = new Promise<void>((resolve) => (enough = resolve));
    const call = client.callTool(
      { name: 'do', arguments: { message: 'gated quiet' } },
      {
        onprogress: (update) => {
          messages.push(update.message ?? '');
          if (messages.filter((message) => message.startsWith('working')).length >= 3) enough();
        },
        resetTimeoutOnProgress: true,
      },
    );
    await three;
    gated.release();
    const result = await call;
    expect(result.structuredContent).toMatchObject({ status: 'complete' });
    expect(messages).toContain('thought: reading: gated quiet');
    expect(messages.filter((message) => message.startsWith('working (run ')).length).toBeGreaterThanOrEqual(3);
  });
});

describe('do as a task', () => {
  it('2025-11-25 (SDK 1.x tasks): the task id is the run id; tasks/get follows it; tasks/cancel cancels the run', async () => {
    const { client } = await v1();
    const stream = client.experimental.tasks.callToolStream({ name: 'do', arguments: { message: 'gated task v1' } }, CallToolResultSchema, { task: { ttl: 60_000 } });
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    const [running] = await history();
    expect(running!.run_id).toBe(taskId);
    await gated.waiting();
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working', statusMessage: 'thought: reading: gated task v1' });
    await client.experimental.tasks.cancelTask(taskId);
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'cancelled' });
    expect(gated.aborted).toContain(taskId);
    await stream.return(undefined);

    const done = client.experimental.tasks.callToolStream({ name: 'do', arguments: { message: 'task v1 to the end' } }, CallToolResultSchema, { task: { ttl: 60_000 } });
    let result: unknown;
    for await (const message of done) if (message.type === 'result') result = message.result;
    expect(result).toMatchObject({ structuredContent: { status: 'complete', summary: 'Done: task v1 to the end' } });
  });

  it('2026-07-28 (SDK v2): a task survives a dropped connection; a new connection reads its result with tasks/get; tasks/cancel cancels', async () => {
    const handles: Record<string, unknown>[] = [];
    // The SDK v2 client has no task API yet: the handle is read off the wire it received.
    const spy: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) {
        const text = await response.clone().text();
        for (const line of text.split('\n')) {
          const json = line.startsWith('data: ') ? line.slice(6) : line.startsWith('{') ? line : '';
          if (json) handles.push(JSON.parse(json) as Record<string, unknown>);
        }
      }
      return response;
    };
    const first = await v2('modern', key.token, { tasks: true, fetch: spy });
    await first.callTool({ name: 'do', arguments: { message: 'gated task v2' } }).catch(() => undefined);
    const handle = (handles.find((message) => 'result' in message) as { result: { resultType: string; taskId: string; status: string } }).result;
    expect(handle).toMatchObject({ resultType: 'task', status: 'working' });
    await first.close(); // the connection drops; the run goes on
    await gated.waiting();

    const second = await v2('modern', key.token, { tasks: true });
    const TaskSchema = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional(), result: z.looseObject({ structuredContent: z.unknown() }).optional() });
    expect(await second.request({ method: 'tasks/get', params: { taskId: handle.taskId } }, TaskSchema)).toMatchObject({ taskId: handle.taskId, status: 'working' });
    // tasks/update: nothing is outstanding on a do, so responses are acknowledged and ignored;
    // an unknown task and a malformed update are refused.
    const update = (params: Record<string, unknown>) => second.request({ method: 'tasks/update', params }, z.looseObject({}));
    await expect(update({ taskId: handle.taskId, inputResponses: { never: { action: 'accept', content: {} } } })).resolves.toBeDefined();
    await expect(update({ taskId: 'no-such-task', inputResponses: {} })).rejects.toThrow(/not found/i);
    await expect(update({ taskId: handle.taskId })).rejects.toThrow(/inputResponses/);
    expect(await second.request({ method: 'tasks/get', params: { taskId: handle.taskId } }, TaskSchema)).toMatchObject({ status: 'working' });
    gated.release();
    const done = await until(
      () => second.request({ method: 'tasks/get', params: { taskId: handle.taskId } }, TaskSchema),
      (task) => task.status !== 'working',
    );
    expect(done).toMatchObject({ status: 'completed', result: { structuredContent: { run_id: handle.taskId, status: 'complete', summary: 'Done: gated task v2' } } });

    handles.length = 0;
    const third = await v2('modern', key.token, { tasks: true, fetch: spy });
    await third.callTool({ name: 'do', arguments: { message: 'gated task to cancel' } }).catch(() => undefined);
    const again = (handles.find((message) => 'result' in message) as { result: { taskId: string } }).result;
    await gated.waiting();
    await second.request({ method: 'tasks/cancel', params: { taskId: again.taskId } }, z.looseObject({}));
    const cancelled = await until(
      () => second.request({ method: 'tasks/get', params: { taskId: again.taskId } }, TaskSchema),
      (task) => task.status !== 'working',
    );
    expect(cancelled.status).toBe('cancelled');
    expect(gated.aborted).toContain(again.taskId);

    // Another node's key cannot see the task.
    const other = await v2('modern', (await mint(structure.agents[2]!.role_id, 'other')).token, { tasks: true });
    await expect(other.request({ method: 'tasks/get', params: { taskId: handle.taskId } }, TaskSchema)).rejects.toThrow(/not found/i);
    await expect(other.request({ method: 'tasks/update', params: { taskId: handle.taskId, inputResponses: {} } }, z.looseObject({}))).rejects.toThrow(/not found/i);
  });
});

describe('resumable events at 2025-11-25', () => {
  it('a dropped SSE stream of a do is resumed with Last-Event-ID and delivers the result', async () => {
    const headers = { ...auth(key.token), 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (await fetch(new URL('/mcp', t.url), { method: 'POST', headers: sessionHeaders, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();

    const controller = new AbortController();
    const call = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: sessionHeaders,
      signal: controller.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'do', arguments: { message: 'gated resume' }, _meta: { progressToken: 'p1' } } }),
    });
    const reader = call.body!.getReader();
    let seen = '';
    let lastId: string | undefined;
    while (!/"progressToken":"p1"/.test(seen)) {
      const { value } = await reader.read();
      seen += new TextDecoder().decode(value);
      for (const match of seen.matchAll(/^id: (.+)$/gm)) if (/"progressToken"/.test(seen)) lastId = match[1];
    }
    expect(lastId).toBeTruthy();
    controller.abort(); // the stream drops mid-turn
    await gated.waiting();
    gated.release();

    // 409 until the server has noticed the dropped stream (one stream per id at a time).
    const resumed = await until(
      () => fetch(new URL('/mcp', t.url), { method: 'GET', headers: { ...sessionHeaders, 'last-event-id': lastId! } }),
      (response) => response.status !== 409,
    );
    expect(resumed.status).toBe(200);
    const rest = resumed.body!.getReader();
    let text = '';
    while (!/"id":7/.test(text)) {
      const { value, done } = await rest.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await rest.cancel();
    expect(text).toMatch(/^id: /m);
    expect(text).toContain('"summary":"Done: gated resume"');
  });
});

describe('HTTP rules of /mcp', () => {
  it('401 names the protected-resource metadata and says why; the metadata is public; other origins get 403', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(new URL('/mcp', t.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
    const unknown = await post({ authorization: 'Bearer org_mcp_0000000000000000000000000000000000' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe(
      `Bearer realm="org", resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="the MCP key is unknown or revoked"`,
    );
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', t.url));
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ resource: `${t.url}/mcp`, bearer_methods_supported: ['header'], authorization_servers: [] });

    const evil = await post({ ...auth(key.token), origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    const same = await post({ ...auth(key.token), origin: t.url });
    expect(same.status).toBe(200);
    // Another loopback origin (a local tool such as the Inspector) may call a loopback server.
    const local = await post({ ...auth(key.token), origin: 'http://localhost:6274' });
    expect(local.status).toBe(200);
    const rebound = await post({ ...auth(key.token), origin: 'http://attacker.example:6274' });
    expect(rebound.status).toBe(403);
  });
});
