/**
 * The stdio bridge (`org mcp`, needs `npm run build`) at the current revision: the SDK
 * v2 client pinned to 2026-07-28 spawns it, calls `do` (structuredContent, resource
 * links read back with resources/read through the bridge), reads a skill with a script
 * file through the Skills extension, and — with the SDK 1.x client — runs `do` as a
 * task and cancels one, which cancels the run on the server.
 */
import { join } from 'node:path';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { StdioClientTransport as StdioV2, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../src/app.js';
import { createGatedRuntime, type GatedRuntime } from './helpers/gated-runtime.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'org.js');

let t: TestInstance;
let gated: GatedRuntime;
let token: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  gated = createGatedRuntime();
  t = await startInstance({ listen: true, deps: { runtime: () => gated.runtime } });
  const owner = await t.createUser('owner@example.com');
  const structure = await t.createStructure(owner.token, 'personal');
  const minted = await t.server.inject({ method: 'POST', url: `/api/org/structures/${structure.id}/agents/${structure.agents[0]!.role_id}/mcp-key`, headers: t.auth(owner.token) });
  token = minted.json<{ token: string }>().token;
  await t.app.skills.upsert({
    slug: 'rotate-logs',
    frontmatter: { type: 'skill', name: 'Rotate logs', status: 'complete', summary: 'Rotates the service logs.' },
    body: '## [rotate] Step 1: Rotate\nRun scripts/rotate.sh.\n',
  });
  await t.app.skills.putFiles('rotate-logs', new Map([['scripts/rotate.sh', new TextEncoder().encode('#!/bin/sh\nlogrotate -f /etc/logrotate.conf\n')]]));
});

afterAll(async () => {
  gated.release();
  for (const close of closers) await close().catch(() => undefined);
  await t.close();
});

describe('org mcp at 2026-07-28 (SDK v2 client)', () => {
  it('do, resources/read of its artifact link, and the Skills extension with a script file', async () => {
    const client = new ClientV2({ name: 'bridge-v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StdioV2({ command: process.execPath, args: [BIN, 'mcp', '--url', t.url, '--key', token], env: getDefaultEnvironment(), stderr: 'ignore' }));
    closers.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    const result = await client.callTool({ name: 'do', arguments: { message: 'bridge report' } });
    expect(result.structuredContent).toMatchObject({ status: 'complete', summary: 'Done: bridge report', artifacts: ['report.md'] });
    const link = (result.content as { type: string; uri?: string }[]).find((block) => block.type === 'resource_link')!;
    const read = await client.readResource({ uri: link.uri! });
    expect((read.contents[0] as { text: string }).text).toContain('Request: bridge report');

    const skills = new SkillsClient(client);
    const { skills: listed } = await skills.list();
    const entry = listed.find((skill) => skill.uri === 'skill://rotate-logs/SKILL.md')!;
    const script = await skills.read(entry, 'scripts/rotate.sh');
    expect(script.verified).toBe(true);
    expect(script.text).toContain('logrotate -f');
  }, 90_000);
});

describe('org mcp at 2025-11-25 (SDK 1.x client)', () => {
  it('do as a task: tasks/get follows it, tasks/cancel cancels the run on the server', async () => {
    const client = new ClientV1({ name: 'bridge-v1', version: '1' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } } as never });
    await client.connect(new StdioV1({ command: process.execPath, args: [BIN, 'mcp', '--url', t.url, '--key', token], stderr: 'ignore' }));
    closers.push(() => client.close());
    const stream = client.experimental.tasks.callToolStream({ name: 'do', arguments: { message: 'gated bridge task' } }, CallToolResultSchema, { task: { ttl: 60_000 } });
    const first = await stream.next();
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    await gated.waiting();
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    await client.experimental.tasks.cancelTask(taskId);
    expect(gated.aborted).toContain(taskId);
    await stream.return(undefined);
  }, 90_000);
});
