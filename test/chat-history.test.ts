/**
 * History (API.md §6): newest first, `limit` and `before`, both senders, the events of a
 * running turn included, bad limits refused; the workspace log of decisions and
 * milestones, newest first; and restart recovery: a run left running by a process that
 * died is closed with `error` "interrupted by restart", once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { decodeEvent } from '../src/core/chat/encoded.js';
import type { EventInput } from '../src/core/chat/types.js';
import { resolveConfig } from '../src/core/config.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { dispatchRuntime, startChat, type ChatFixture } from './helpers/chat.js';
import { ADMIN_TOKEN } from './helpers/instance.js';

const WORK: EventInput[] = [
  { type: 'milestone', content: { title: 'Read the brief' } },
  { type: 'decision', content: { title: 'Use the Q3 numbers', body: 'They are the last audited ones.' } },
  { type: 'text', content: 'Working on it. ' },
  { type: 'milestone', content: { title: 'Drafted the memo' } },
  { type: 'complete', content: { summary: 'memo drafted', artifacts: [] } },
];

const SLOW: EventInput[] = [
  { type: 'thought', content: 'slow 1' },
  { type: 'text', content: 'partial ' },
  { type: 'text', content: 'answer ' },
  { type: 'text', content: 'goes on ' },
  { type: 'complete', content: { summary: 'slow done', artifacts: [] } },
];

describe('chat history', () => {
  let c: ChatFixture;
  beforeAll(async () => {
    c = await startChat({
      deps: { runtime: () => dispatchRuntime({ work: createScriptedRuntime(WORK), slow: createScriptedRuntime(SLOW, { delayMs: 300 }) }, createScriptedRuntime(WORK)) },
    });
  });
  afterAll(async () => {
    await c.close();
  });

  it('pages newest first with limit and before, with both senders', async () => {
    const runs: string[] = [];
    for (const message of ['work one', 'work two', 'work three']) {
      const stream = await c.send(message);
      await stream.ended;
      runs.push(String(stream.headers['x-org-run-id']));
    }
    const all = await c.history();
    expect(all).toHaveLength(6);
    expect(all.map((message) => `${message.sender}:${runs.indexOf(message.run_id) + 1}`)).toEqual(['agent:3', 'user:3', 'agent:2', 'user:2', 'agent:1', 'user:1']);
    const [agent3, user3] = all;
    expect(user3).toMatchObject({ sender: 'user', text: 'work three', attachments: [], events: [], status: 'complete' });
    expect(agent3).toMatchObject({ sender: 'agent', text: 'Working on it. ', summary: 'memo drafted', status: 'complete', artifacts: [] });
    expect(agent3?.events.map((event) => event.type)).toEqual(['milestone', 'decision', 'text', 'milestone', 'complete']);
    expect(Date.parse(agent3!.completed_at!)).toBeGreaterThanOrEqual(Date.parse(agent3!.created_at));
    expect(new Set(all.map((message) => message.id)).size).toBe(6);

    const first = await c.history({ limit: 2 });
    expect(first).toEqual(all.slice(0, 2));
    const second = await c.history({ limit: 2, before: first.at(-1)!.id });
    expect(second).toEqual(all.slice(2, 4));
    const third = await c.history({ limit: 3, before: second.at(-1)!.id });
    expect(third).toEqual(all.slice(4, 6));
    expect(await c.history({ limit: 50, before: all.at(-1)!.id })).toEqual([]);
    expect(await c.history({ limit: 500 })).toEqual(all);
    // The other node's history is its own.
    expect(await c.history({ roleId: c.otherRoleId })).toEqual([]);
  });

  it('records the author of each user message from the request’s resolved principal, whatever the body names', async () => {
    const key = await c.t.server.inject({
      method: 'POST',
      url: `/api/org/structures/${c.structure.id}/agents/${c.otherRoleId}/mcp-key`,
      headers: c.t.auth(c.owner.token),
      payload: { label: 'laptop agent' },
    });
    expect(key.statusCode).toBe(201);
    const { id: keyId, token: keyToken } = key.json<{ id: string; token: string }>();
    const forged = { kind: 'admin', id: 'someone-else', label: 'Forged' };
    const body = (message: string) => ({ structure_id: c.structure.id, role_id: c.otherRoleId, message, author: forged, author_id: 'x' });
    for (const [message, token] of [['work as the owner', c.owner.token], ['work as the administrator', ADMIN_TOKEN], ['work as the key', keyToken]] as const) {
      const response = await c.sync(message, { token, body: body(message) });
      expect(response.statusCode, response.body).toBe(200);
    }
    const users = (await c.history({ roleId: c.otherRoleId, limit: 500 })).filter((message) => message.sender === 'user');
    const authorOf = (text: string) => users.find((message) => message.text === text)?.author;
    const email = (await c.t.server.inject({ method: 'GET', url: '/api/org/whoami', headers: c.t.auth(c.owner.token) })).json<{ user: { email: string } }>().user.email;
    expect(authorOf('work as the owner')).toEqual({ kind: 'user', id: c.owner.id, label: email });
    expect(authorOf('work as the administrator')).toEqual({ kind: 'admin', label: 'administrator' });
    expect(authorOf('work as the key')).toEqual({ kind: 'node_key', id: keyId, label: 'laptop agent' });
  });

  it('includes the events of a running turn so far', async () => {
    const stream = await c.send('slow and watched');
    await stream.until((r) => r.frames().length >= 2);
    const runId = String(stream.headers['x-org-run-id']);
    const [agent, user] = await c.history({ limit: 2 });
    expect(user).toMatchObject({ sender: 'user', run_id: runId, text: 'slow and watched' });
    expect(agent).toMatchObject({ sender: 'agent', run_id: runId, status: 'running', completed_at: null, summary: null });
    expect(agent!.events.length).toBeGreaterThanOrEqual(2);
    expect(agent!.events.length).toBeLessThan(SLOW.length);
    expect(agent!.events).toEqual(stream.frames().slice(0, agent!.events.length).map((frame) => frame.event));
    expect(agent!.text.startsWith('partial ')).toBe(true);
    await stream.ended;
    const done = await c.settled(runId);
    expect(done.events).toHaveLength(SLOW.length);
    expect(done.text).toBe('partial answer goes on ');
  });

  it('refuses limit 0 and 501, bad parameters, unknown nodes and messages, strangers', async () => {
    const get = (query: string, token = c.owner.token) => c.t.server.inject({ method: 'GET', url: `/api/org/chat/history?${query}`, headers: c.t.auth(token) });
    const base = `structure_id=${c.structure.id}&role_id=${c.roleId}`;
    for (const query of [`${base}&limit=0`, `${base}&limit=501`, `${base}&limit=-1`, `${base}&limit=abc`, `${base}&limit=2.5`, `structure_id=${c.structure.id}`, `role_id=${c.roleId}`, `${base}&before=nope`]) {
      const response = await get(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_request' });
    }
    expect((await get(`${base}&limit=1`)).json()).toHaveLength(1);
    expect((await get(`${base}&limit=500`)).statusCode).toBe(200);
    expect((await get(base)).json<unknown[]>().length).toBeLessThanOrEqual(50);
    expect((await get(`structure_id=${c.structure.id}&role_id=exec-nobody`)).statusCode).toBe(404);
    expect((await get(`${base}&before=6a0b8f4e-2a6c-4c1e-9f0e-7d4b2c1a9e8f`)).statusCode).toBe(404);
    const viewer = await c.t.createUser('history-viewer@example.com');
    await c.t.app.members.set(c.structure.id, viewer.id, 'viewer');
    expect((await get(base, viewer.token)).statusCode).toBe(200);
    const stranger = await c.t.createUser('history-stranger@example.com');
    expect((await get(base, stranger.token)).statusCode).toBe(404);
  });

  it('puts decisions and milestones of turns in the workspace log, newest first', async () => {
    const log = async (query = '') => {
      const response = await c.t.server.inject({ method: 'GET', url: `/api/org/structures/${c.structure.id}/log${query}`, headers: c.t.auth(c.owner.token) });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ entries: { type: string; title: string; body?: string; role_id: string; node_id: string; run_id: string | null; created_at: string }[] }>().entries;
    };
    const stream = await c.send('work for the cto', { roleId: c.otherRoleId });
    await stream.ended;
    const runId = String(stream.headers['x-org-run-id']);
    const cto = c.structure.agents.find((agent) => agent.role_id === c.otherRoleId)!;
    const entries = await log();
    expect(entries.slice(0, 3)).toEqual([
      { id: expect.any(String), type: 'milestone', title: 'Drafted the memo', role_id: c.otherRoleId, node_id: cto.id, run_id: runId, created_at: expect.any(String) },
      {
        id: expect.any(String),
        type: 'decision',
        title: 'Use the Q3 numbers',
        body: 'They are the last audited ones.',
        role_id: c.otherRoleId,
        node_id: cto.id,
        run_id: runId,
        created_at: expect.any(String),
      },
      { id: expect.any(String), type: 'milestone', title: 'Read the brief', role_id: c.otherRoleId, node_id: cto.id, run_id: runId, created_at: expect.any(String) },
    ]);
    // The three CFO turns of the first test follow (three entries each).
    expect(entries.filter((entry) => entry.role_id === c.roleId)).toHaveLength(9);
    const times = entries.map((entry) => Date.parse(entry.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(await log('?limit=2')).toEqual(entries.slice(0, 2));
    const bad = await c.t.server.inject({ method: 'GET', url: `/api/org/structures/${c.structure.id}/log?limit=0`, headers: c.t.auth(c.owner.token) });
    expect(bad.statusCode).toBe(400);
  });
});

describe('restart recovery', () => {
  let home: string;
  const apps: App[] = [];
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-chat-recover-'));
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await rm(home, { recursive: true, force: true });
  });

  const config = () => ({
    ...resolveConfig({ home, port: 0, demo: false }, { ORG_ADMIN_TOKEN: ADMIN_TOKEN, ORG_CONFIG_DIR: join(home, 'config') }),
    watchSkills: false,
    shutdownGraceMs: 50,
  });

  it('closes runs left running by a dead process with error "interrupted by restart", once', async () => {
    // The first process: a runtime that emits two events, then hangs for ever (ignoring cancel).
    const stuck: AgentRuntime = {
      name: 'stuck',
      async run(_turn, emit) {
        await emit({ type: 'thought', content: 'started' });
        await emit({ type: 'text', content: 'half an answer' });
        await new Promise(() => undefined);
      },
    };
    const first = await createApp(config(), { runtime: () => stuck });
    apps.push(first);
    const owner = await first.users.create('owner@example.com');
    const structure = await first.structures.create({ name: 'Acme', template: 'exec-team', ownerId: owner.user.id });
    const running = await first.chat.send({ structureId: structure.id, roleId: 'exec-cfo', message: 'never finishes' });
    const queued = await first.chat.send({ structureId: structure.id, roleId: 'exec-cfo', message: 'waits behind it' });
    // Both events are durable once the run publishes them.
    let unsubscribe: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      // The replay of events already published runs inside subscribe(), before it returns.
      unsubscribe = running.subscribe(0, (event) => {
        if (event.seq >= 2) resolve();
      });
    });
    unsubscribe?.();

    // The process "dies" (it is never closed before the next one starts on the same home).
    const second = await createApp(config(), { runtime: () => createScriptedRuntime(WORK) });
    apps.push(second);
    const history = await second.chat.history(structure.id, 'exec-cfo', { limit: 10 });
    const agentOf = (runId: string) => history.find((message) => message.sender === 'agent' && message.run_id === runId)!;
    const interrupted = agentOf(running.id);
    expect(interrupted.status).toBe('error');
    expect(interrupted.completed_at).not.toBeNull();
    expect(interrupted.events.map((event) => [event.type, event.content])).toEqual([
      ['thought', 'started'],
      ['text', 'half an answer'],
      ['error', { message: 'interrupted by restart' }],
    ]);
    const waiting = agentOf(queued.id);
    expect(waiting.status).toBe('error');
    expect(waiting.events.map((event) => [event.type, event.content])).toEqual([
      ['thought', expect.stringMatching(/^waiting for the node's current turn \(run /)],
      ['error', { message: 'interrupted by restart' }],
    ]);
    // Both user messages survive.
    expect(history.filter((message) => message.sender === 'user').map((message) => message.text)).toEqual(['waits behind it', 'never finishes']);

    // The recovered run replays with its terminal event and cannot be cancelled.
    const replay = await second.chat.replay(running.id);
    expect(decodeEvent(replay.events.at(-1)!)).toMatchObject({ type: 'error', content: { message: 'interrupted by restart' } });
    await expect(second.chat.cancel(running.id)).rejects.toMatchObject({ code: 'conflict' });
    // Recovery is done once: nothing left to recover, in this process or the next.
    expect(await second.chat.recover()).toBe(0);
    // The node works again.
    const next = await second.chat.send({ structureId: structure.id, roleId: 'exec-cfo', message: 'work again' });
    await next.done;
    expect(next.status).toBe('complete');

    const third = await createApp(config(), { runtime: () => createScriptedRuntime(WORK) });
    apps.push(third);
    const again = await third.chat.history(structure.id, 'exec-cfo', { limit: 10 });
    const errors = again.filter((message) => message.run_id === running.id).flatMap((message) => message.events).filter((event) => event.type === 'error');
    expect(errors).toHaveLength(1);
    expect(again[0]).toMatchObject({ sender: 'agent', run_id: next.id, status: 'complete' });
  });
});
