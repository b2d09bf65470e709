/**
 * What org does with the answers of the addresses it calls for users, on a real
 * listening server: a tool's answer is read up to a bound and the rest is never
 * downloaded (the event says it was cut); a container's error answer is not shown to
 * users (its status is); and a webhook's delivery log says the same thing however a
 * connection failed, so that registering URLs does not scan ports. A stored run is
 * replayed from its file as a stream.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContainerAgent } from '../examples/container-agent/server.mjs';
import type { Delivery } from '../src/core/schemas/webhooks.js';
import { TOOL_ANSWER_LIMIT } from '../src/core/runtimes/tool-call.js';
import { NO_ANSWER } from '../src/core/webhooks/index.js';
import { startInstance, type TestInstance, ADMIN_TOKEN } from './helpers/instance.js';
import { notifier } from './helpers/notifier.js';

type Event = { type: string; content: Record<string, unknown> & { tool?: string; result?: Record<string, unknown>; message?: string } };

let t: TestInstance;
let structureId: string;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  t = await startInstance({ listen: true });
  structureId = ((await t.createStructure(ADMIN_TOKEN, 'exec-team', 'Answers')) as unknown as { id: string }).id;
});
afterAll(async () => {
  await t?.close();
  for (const close of closers.splice(0)) await close();
});

/** Listens on a free loopback port; the server and its connections are closed after the tests. */
async function listen(server: Server | TcpServer): Promise<number> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function turn(roleId: string, message: string): Promise<{ runId: string; events: Event[] }> {
  const { status, json } = await call('POST', '/api/org/chat/message/sync', { structure_id: structureId, role_id: roleId, message });
  expect(status).toBe(200);
  return { runId: json.run_id as string, events: json.events as Event[] };
}

describe('tool answers are read up to a bound', () => {
  it('an answer that never ends is cut at the bound, the rest is not downloaded, and the event says so', async () => {
    let written = 0;
    let closed!: () => void;
    const peerClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    // Writes 64 KiB chunks for as long as the connection lasts: only a bounded read ends this turn.
    const port = await listen(
      createHttpServer((request, response) => {
        request.resume();
        response.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (!response.destroyed && response.write(chunk)) written += chunk.length;
        };
        response.on('drain', pump);
        response.on('close', closed);
        pump();
      }),
    );
    const skill = {
      type: 'skill',
      name: 'Endless tool',
      category: 'general',
      difficulty: 'low',
      tags: [],
      status: 'complete',
      summary: 'Calls a tool that never stops answering.',
      learned_by: 'user',
      tool_url: `http://127.0.0.1:${port}/endless`,
    };
    expect((await call('POST', '/api/org/knowledge/skills', { structure_id: structureId, slug: 'endless-tool', frontmatter: skill, body: '## [s1] Step 1: Ask\nAsk it.\n' })).status).toBe(201);
    const { runId, events } = await turn('exec-cfo', '/endless-tool');
    await peerClosed;
    const result = events.find((event) => event.type === 'tool_result' && event.content.tool === 'tool_url')!.content.result!;
    expect(result).toMatchObject({ ok: true, status: 200, truncated: true, limit_bytes: TOOL_ANSWER_LIMIT });
    expect(result.body).toBe('a'.repeat(TOOL_ANSWER_LIMIT));
    expect(events.at(-1)!.type).toBe('complete');
    // Far less than an unbounded read would have taken (it would never have ended).
    expect(written).toBeLessThan(64 * 1024 * 1024);
    // The stored run holds the cut answer, not more.
    const replay = await fetch(`${t.url}/api/org/chat/runs/${runId}/events`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect((await replay.text()).length).toBeLessThan(TOOL_ANSWER_LIMIT + 64 * 1024);
  });
});

describe("containers' error answers are not echoed", () => {
  it('a container answering an error status ends the turn with the status alone; its body stays out of the run', async () => {
    const port = await listen(
      createHttpServer((request, response) => {
        request.resume();
        response.writeHead(500, { 'content-type': 'text/plain' }).end('internal: db password hunter2 at /srv/agent/secrets.env line 3');
      }),
    );
    expect((await call('PATCH', `/api/org/structures/${structureId}/agents/exec-cto`, { container_url: `http://127.0.0.1:${port}` })).status).toBe(200);
    const { runId, events } = await turn('exec-cto', 'hello');
    expect(events).toEqual([expect.objectContaining({ type: 'error', content: { message: `container at http://127.0.0.1:${port} answered HTTP 500` } })]);
    const history = await call('GET', `/api/org/chat/history?structure_id=${structureId}&role_id=exec-cto&limit=5`);
    const replay = await (await fetch(`${t.url}/api/org/chat/runs/${runId}/events`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
    expect(JSON.stringify(history.json) + replay).not.toContain('hunter2');
  });
});

describe('webhook deliveries are no port-scan oracle', () => {
  it('a closed port, a port that speaks something else and a port that hangs up all read the same in the delivery log', async () => {
    // A port nothing listens on.
    const closedPort = await listen(createTcpServer());
    await closers.pop()!();
    // A port whose service greets with a banner that is not HTTP.
    const bannerPort = await listen(createTcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n')));
    // A port whose service drops the connection at once.
    const resetPort = await listen(createTcpServer((socket) => socket.resetAndDestroy()));
    const owner = await t.createUser('oracle@example.com');
    const own = (await t.createStructure(owner.token, 'blank', 'Oracle')) as unknown as { id: string };
    const lead = await fetch(`${t.url}/api/org/structures/${own.id}/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role_id: 'oracle-lead', label: 'Lead', parent_id: null }),
    });
    expect(lead.status).toBe(201);
    for (const port of [closedPort, bannerPort, resetPort]) {
      const hook = await fetch(`${t.url}/api/org/structures/${own.id}/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['run.completed'] }),
      });
      expect(hook.status).toBe(201);
    }
    const attempted = new Map<string, Delivery>();
    const changes = notifier();
    const stop = t.app.webhooks.onDelivery((delivery) => {
      if (delivery.attempts.length > 0) attempted.set(delivery.webhook_id, delivery);
      changes.notify();
    });
    const sent = await fetch(`${t.url}/api/org/chat/message/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ structure_id: own.id, role_id: 'oracle-lead', message: 'hello' }),
    });
    expect(sent.status).toBe(200);
    await changes.until(() => attempted.size === 3, 'a first attempt of each delivery');
    stop();
    // What the owner reads: one and the same line for all three.
    const listed = await Promise.all(
      [...attempted.keys()].map(async (webhookId) => {
        const response = await fetch(`${t.url}/api/org/structures/${own.id}/webhooks/${webhookId}/deliveries`, { headers: { authorization: `Bearer ${owner.token}` } });
        return ((await response.json()) as { deliveries: Delivery[] }).deliveries[0]!.attempts[0]!;
      }),
    );
    expect(listed.map(({ response_code, error, duration_ms }) => ({ response_code, error, duration_ms }))).toEqual([
      { response_code: null, error: NO_ANSWER, duration_ms: 0 },
      { response_code: null, error: NO_ANSWER, duration_ms: 0 },
      { response_code: null, error: NO_ANSWER, duration_ms: 0 },
    ]);
  });
});

describe('replays of stored runs are streamed', () => {
  it('a long run no longer in memory replays from its file, after any Last-Event-ID, then 204', async () => {
    const agent = await startContainerAgent({ log: () => undefined });
    closers.push(() => agent.close());
    const home = await mkdtemp(join(tmpdir(), 'org-replay-'));
    closers.push(() => rm(home, { recursive: true, force: true }));
    const first = await startInstance({ listen: true, home });
    const id = ((await first.createStructure(ADMIN_TOKEN, 'exec-team', 'Replay')) as unknown as { id: string }).id;
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    expect((await fetch(`${first.url}/api/org/structures/${id}/agents/exec-cto`, { method: 'PATCH', headers, body: JSON.stringify({ container_url: agent.url }) })).status).toBe(200);
    const sent = await fetch(`${first.url}/api/org/chat/message/sync`, { method: 'POST', headers, body: JSON.stringify({ structure_id: id, role_id: 'exec-cto', message: 'flood 20000' }) });
    const { run_id: runId, events } = (await sent.json()) as { run_id: string; events: unknown[] };
    expect(events).toHaveLength(20001);
    await first.close();
    // A new process: the run is only in its file now.
    const second = await startInstance({ listen: true, home });
    closers.push(() => second.close());
    const replay = async (lastEventId?: string) => {
      const response = await fetch(`${second.url}/api/org/chat/runs/${runId}/events`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } });
      return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
    };
    const whole = await replay();
    expect([whole.status, whole.type]).toEqual([200, 'text/event-stream; charset=utf-8']);
    const ids = [...whole.text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual(Array.from({ length: 20001 }, (_, i) => i + 1));
    expect(JSON.parse(/data: (.*)\n\n$/.exec(whole.text)![1]!)).toMatchObject({ type: 'complete', content: { summary: 'flooded 20000 events' } });
    const tail = await replay('19990');
    expect([...tail.text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))).toEqual(Array.from({ length: 11 }, (_, i) => 19991 + i));
    expect(whole.text.endsWith(tail.text)).toBe(true);
    expect((await replay('20001')).status).toBe(204);
  });
});
