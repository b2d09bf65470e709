/**
 * Nodes with a `container_url` through the HTTP API (API.md §6 "Routing"), against the
 * example agent (examples/container-agent): the enriched turn reaches the container and
 * its events are relayed; a container that sends garbage or an invalid event, stalls,
 * ends without a terminal event, answers an HTTP error or is down ends the turn with
 * `error` — the stream's last event and the history status.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContainerAgent, type ContainerAgent } from '../examples/container-agent/server.mjs';
import { ENRICH_TEXT } from '../src/core/chat/enrich.js';
import { createContainerRuntime } from '../src/core/runtimes/container.js';
import type { Turn } from '../src/core/runtimes/types.js';
import { startChat, type ChatFixture } from './helpers/chat.js';
import type { SseResponse } from './helpers/sse.js';

/** A loopback port with nothing listening on it. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A container that keeps every turn it is sent and answers `reply` as one text event, then complete. */
async function recordingContainer(reply: string): Promise<{ url: string; turns: Turn[]; server: Server }> {
  const turns: Turn[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      turns.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Turn);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ type: 'text', content: reply })}\n\n`);
      res.end(`data: ${JSON.stringify({ type: 'complete', content: { summary: 'replied' } })}\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, turns, server };
}

describe('container nodes over HTTP', () => {
  let c: ChatFixture;
  let agent: ContainerAgent;
  let staller: ContainerAgent;
  let downUrl: string;
  // A reply longer than a turn carries, its last character the high half of a pair… cut there.
  const longReply = `${'a'.repeat(ENRICH_TEXT - 1)}😀${'b'.repeat(5000)}`;
  let recorder: Awaited<ReturnType<typeof recordingContainer>>;

  beforeAll(async () => {
    agent = await startContainerAgent({ log: () => undefined });
    staller = await startContainerAgent({ log: () => undefined });
    downUrl = `http://bot:s3cret-pass@127.0.0.1:${await deadPort()}`;
    recorder = await recordingContainer(longReply);
    c = await startChat({
      deps: {
        // The stalling container gets a short idle timeout; every other node takes the app's routing.
        runtime: (node) => (node.container_url === staller.url ? createContainerRuntime(staller.url, { idleTimeoutMs: 400 }) : undefined),
      },
    });
    for (const [roleId, url] of [
      ['exec-cto', agent.url],
      ['exec-coo', staller.url],
      ['exec-cmo', downUrl],
      ['exec-cfo', recorder.url],
    ] as const) {
      const response = await c.t.server.inject({
        method: 'PATCH',
        url: `/api/org/structures/${c.structure.id}/agents/${roleId}`,
        headers: c.t.auth(c.owner.token),
        payload: { container_url: url },
      });
      expect(response.statusCode, response.body).toBe(200);
    }
  });
  afterAll(async () => {
    await c.close();
    await agent.close();
    await staller.close();
    await new Promise((resolve) => recorder.server.close(resolve));
  });

  /** Sends, waits for the end, checks that the turn ended with one error, last; returns its message. */
  async function failingTurn(message: string, roleId: string): Promise<{ stream: SseResponse; error: string }> {
    const stream = await c.send(message, { roleId });
    expect(stream.status).toBe(200);
    await stream.ended;
    const events = stream.frames().map((frame) => frame.event!);
    expect(events.at(-1)?.type).toBe('error');
    expect(events.filter((event) => event.type === 'error' || event.type === 'complete')).toHaveLength(1);
    const history = await c.settled(String(stream.headers['x-org-run-id']), roleId);
    expect(history.status).toBe('error');
    expect(history.events).toEqual(events);
    return { stream, error: (events.at(-1)!.content as { message: string }).message };
  }

  it('relays the demo turn built from the enriched request (structure, node label, message)', async () => {
    const stream = await c.send('ship the anvils', { roleId: 'exec-cto' });
    await stream.ended;
    const events = stream.frames().map((frame) => frame.event!);
    expect(events.map((event) => event.type)).toEqual(['thought', 'tool_call', 'tool_result', 'text', 'text', 'text', 'text', 'milestone', 'complete']);
    expect(events[0]?.content).toBe('Reading the request for Chief Technology Officer.');
    expect(events.at(-1)?.content).toEqual({ summary: 'Echoed 3 word(s) from Acme.', artifacts: [] });
    const history = await c.settled(String(stream.headers['x-org-run-id']), 'exec-cto');
    expect(history).toMatchObject({ status: 'complete', text: 'You said: ship the anvils' });
  });

  it('garbage (data that is not JSON) → error, after the events relayed before it', async () => {
    const { stream, error } = await failingTurn('garbage', 'exec-cto');
    expect(stream.frames().map((frame) => frame.event?.type)).toEqual(['thought', 'error']);
    expect(error).toMatch(/^container sent an invalid event: data is not JSON/);
  });

  it('an invalid chat event → error naming what is wrong', async () => {
    const { error } = await failingTurn('invalid', 'exec-cto');
    expect(error).toContain('milestone event: content.title must be a string');
  });

  it('a stream without a terminal event → error', async () => {
    const { stream, error } = await failingTurn('no-terminal', 'exec-cto');
    expect(stream.frames().map((frame) => frame.event?.type)).toEqual(['text', 'error']);
    expect(error).toBe('container closed the stream before a complete or error event');
  });

  it('an HTTP error from the container → error with the status', async () => {
    const { error } = await failingTurn('status 503', 'exec-cto');
    expect(error).toMatch(/answered HTTP 503/);
  });

  it('a container that stalls → error after the idle timeout, and the node is free again', async () => {
    const { stream, error } = await failingTurn('stall', 'exec-coo');
    expect(stream.frames().map((frame) => frame.event?.type)).toEqual(['thought', 'error']);
    expect(error).toMatch(/sent nothing for/);
    const next = await c.send('hello again', { roleId: 'exec-coo' });
    await next.ended;
    expect(next.frames().at(-1)?.event?.type).toBe('complete');
  });

  it('a container that is down → error saying it is unreachable, without its credentials', async () => {
    const { stream, error } = await failingTurn('anyone there?', 'exec-cmo');
    expect(stream.frames()).toHaveLength(1);
    expect(error).toMatch(/unreachable/);
    expect(stream.text).not.toContain('s3cret-pass');
  });

  it('a turn carries each history text up to ENRICH_TEXT characters, marked when cut, while the history keeps all of it', async () => {
    const first = await c.send('write the long report', { roleId: 'exec-cfo' });
    await first.ended;
    expect(first.frames().at(-1)?.event?.type).toBe('complete');
    const second = await c.send('and now?', { roleId: 'exec-cfo' });
    await second.ended;
    expect(recorder.turns).toHaveLength(2);
    const [agent, user] = recorder.turns[1]!.history;
    expect(agent).toMatchObject({ sender: 'agent', text_truncated: true, summary: 'replied' });
    // Cut before the surrogate pair rather than inside it.
    expect(agent!.text).toBe('a'.repeat(ENRICH_TEXT - 1));
    expect(user).toMatchObject({ sender: 'user', text: 'write the long report' });
    expect(user).not.toHaveProperty('text_truncated');
    const stored = await c.settled(String(first.headers['x-org-run-id']), 'exec-cfo');
    expect(stored.text).toBe(longReply);
  });
});
