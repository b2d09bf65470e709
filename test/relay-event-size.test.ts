/**
 * One relayed event is bounded (docs/runtime-protocol.md "Response": 1 MiB): a container that streams
 * one enormous `data:` line, never ended, must not make the relay buffer it whole. Against
 * the example agent as a real child process (`oversize <MiB>`), over a listening server:
 * the turn ends with an `error` naming the limit, the oversized event is never relayed or
 * recorded, and org closes the request (the agent sees it closed and stops writing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EVENT_CHARS } from '../src/core/runtimes/sse.js';
import { startAgentProcess, type AgentProcess } from './helpers/agent-process.js';
import { startChat, type ChatFixture } from './helpers/chat.js';

describe('relayed events are bounded in size', () => {
  let c: ChatFixture;
  let agent: AgentProcess;

  beforeAll(async () => {
    agent = await startAgentProcess();
    c = await startChat();
    const response = await c.t.server.inject({
      method: 'PATCH',
      url: `/api/org/structures/${c.structure.id}/agents/exec-cto`,
      headers: c.t.auth(c.owner.token),
      payload: { container_url: agent.url },
    });
    expect(response.statusCode, response.body).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await agent?.stop();
    await c?.close();
  });

  it('a container streaming one endless data line gets its turn ended with an error naming the 1 MiB limit, and its request closed', async () => {
    expect(MAX_EVENT_CHARS).toBe(1024 * 1024);
    // 64 MiB offered: far past the limit, so only a relay that stops reading ends it early.
    const stream = await c.send('oversize 64', { roleId: 'exec-cto' });
    expect(stream.status).toBe(200);
    await stream.ended;
    const runId = String(stream.headers['x-org-run-id']);
    const events = stream.frames().map((frame) => frame.event!);
    expect(events.map((event) => event.type)).toEqual(['error']);
    expect((events[0]!.content as { message: string }).message).toMatch(/^container at http:\/\/127\.0\.0\.1:\d+\/? sent an event larger than 1 MiB, the limit of one event; the turn was ended there$/);
    // org closed the request at the limit: the agent saw it before it had written its 64 MiB.
    await agent.printed(`client closed (run ${runId})`);
    const history = await c.settled(runId, 'exec-cto');
    expect(history.status).toBe('error');
    expect(history.text ?? '').toBe('');
    expect(stream.text.length).toBeLessThan(MAX_EVENT_CHARS);
  });

  it('the node takes its next turn after an oversized event', async () => {
    const stream = await c.send('hello after the oversized one', { roleId: 'exec-cto' });
    await stream.ended;
    expect(stream.frames().at(-1)?.event?.type).toBe('complete');
  });
});
