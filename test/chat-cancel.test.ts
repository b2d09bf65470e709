/**
 * Cancel (API.md §6): `POST /api/org/chat/runs/{id}/cancel` → 202 `{run_id}`; the turn
 * ends with `error` `{message: "cancelled"}`, its history message has status `error`,
 * and the runtime's work really stops — for each runtime: scripted, local (a slow
 * `tool_url`), container (the example agent sees the request closed) and LLM (the
 * scripted provider sees the stream closed). A finished run → 409, unknown → 404.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContainerAgent, type ContainerAgent } from '../examples/container-agent/server.mjs';
import type { EventInput } from '../src/core/chat/types.js';
import { createLocalRuntime } from '../src/core/runtimes/local.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { dispatchRuntime, probe, startChat, type ChatFixture, type Probe } from './helpers/chat.js';
import { notifier, type Notifier } from './helpers/notifier.js';
import type { SseResponse } from './helpers/sse.js';
import { startScriptedLlm, type ScriptedLlm } from './helpers/scripted-llm.js';

const LONG: EventInput[] = [
  ...Array.from({ length: 50 }, (_, index): EventInput => ({ type: 'text', content: `tick ${index} ` })),
  { type: 'complete', content: { summary: 'never reached', artifacts: [] } },
];

/** The message of a turn that ends at once on every node (the LLM answers it in one chunk). */
const LATER = 'a later turn';

/** A tool endpoint that never answers, and records whether the caller hung up. */
interface SlowTool {
  url: string;
  received: number;
  closedByClient: number;
  /** Notified on each request and each hang-up. */
  changes: Notifier;
  server: Server;
}

async function startSlowTool(): Promise<SlowTool> {
  const tool: SlowTool = { url: '', received: 0, closedByClient: 0, changes: notifier(), server: createServer() };
  tool.server.on('request', (req, res) => {
    tool.received++;
    tool.changes.notify();
    req.resume();
    res.on('close', () => {
      if (!res.writableFinished) tool.closedByClient++;
      tool.changes.notify();
    });
    // Answers after a minute; cancel must not wait for that.
    const timer = setTimeout(() => res.end('{"late":true}'), 60_000);
    res.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => tool.server.listen(0, '127.0.0.1', resolve));
  tool.url = `http://127.0.0.1:${(tool.server.address() as AddressInfo).port}/tool`;
  return tool;
}

describe('cancel', () => {
  let c: ChatFixture;
  let scripted: Probe;
  let local: Probe;
  let agent: ContainerAgent;
  const agentLog: string[] = [];
  const agentLogged = notifier();
  let llm: ScriptedLlm;
  let tool: SlowTool;

  beforeAll(async () => {
    agent = await startContainerAgent({
      log: (line) => {
        agentLog.push(line);
        agentLogged.notify();
      },
    });
    llm = await startScriptedLlm((request) =>
      JSON.stringify(request.body.messages).includes(LATER) ? { text: 'Done.' } : { text: Array.from({ length: 100 }, (_, index) => `word${index} `), delayMs: 100 },
    );
    tool = await startSlowTool();
    scripted = probe(createScriptedRuntime(LONG, { delayMs: 100 }));
    local = probe(createLocalRuntime());
    const dispatch: AgentRuntime = dispatchRuntime({ scripted }, local);
    c = await startChat({
      config: { llm: { url: llm.url, model: 'test-model', apiKey: 'sk-test-cancel-0123456789' } },
      deps: {
        // exec-cmo and container nodes take the app's own routing (LLM, container).
        runtime: (node) => ((node as { role_id?: string }).role_id === 'exec-cmo' || node.container_url ? undefined : dispatch),
      },
    });
    await c.t.app.skills.upsert({
      slug: 'slow-tool',
      frontmatter: { type: 'skill', name: 'Slow tool', status: 'complete', tool_url: tool.url, summary: 'Calls a slow tool.' },
      body: '## [call] Step 1: Call the tool\n\nAsk the tool.\n\n## [again] Step 2: Call it again\n\nAsk again.\n',
    });
    const patched = await c.t.server.inject({
      method: 'PATCH',
      url: `/api/org/structures/${c.structure.id}/agents/exec-cto`,
      headers: c.t.auth(c.owner.token),
      payload: { container_url: agent.url },
    });
    expect(patched.statusCode, patched.body).toBe(200);
  });
  afterAll(async () => {
    await c.close();
    await agent.close();
    await llm.close();
    tool.server.closeAllConnections();
    await new Promise((resolve) => tool.server.close(resolve));
  });

  const cancel = (runId: string, token = c.owner.token) =>
    c.t.server.inject({ method: 'POST', url: `/api/org/chat/runs/${runId}/cancel`, headers: c.t.auth(token) });

  /**
   * Runs a quick turn on the node to its end. Turns of one node run and are recorded in
   * order, so once it has finished, anything an earlier turn was still going to do has
   * happened: this is what "nothing happened later" is checked against.
   */
  async function laterTurn(roleId: string): Promise<void> {
    const later = await c.send(LATER, { roleId });
    await later.ended;
    expect(later.frames().at(-1)?.event?.type).toBe('complete');
    await c.settled(String(later.headers['x-org-run-id']), roleId);
  }

  /** Cancels a running stream and checks the end of the stream and of the history, then that nothing follows. */
  async function cancelAndCheck(stream: SseResponse, roleId: string, beforeLater: () => Promise<void> = () => Promise.resolve()): Promise<string> {
    const runId = String(stream.headers['x-org-run-id']);
    const response = await cancel(runId);
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toEqual({ run_id: runId });
    await stream.ended;
    const frames = stream.frames();
    // The error names who stopped the run, so a client can say "Stopped by …".
    expect(frames.at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'cancelled', cancelled_by: expect.stringMatching(/@example\.com$/) } });
    expect(frames.filter((frame) => frame.event?.type === 'error' || frame.event?.type === 'complete')).toHaveLength(1);
    const message = await c.settled(runId, roleId);
    expect(message.status).toBe('error');
    expect(message.events.at(-1)).toMatchObject({ type: 'error', content: { message: 'cancelled' } });
    await beforeLater();
    // Nothing is recorded after the terminal event, even once a later turn has run.
    await laterTurn(roleId);
    expect((await c.agentMessage(runId, roleId))?.events).toHaveLength(message.events.length);
    return runId;
  }

  it('scripted runtime: the stream ends with error "cancelled" and the runtime stops', async () => {
    const stream = await c.send('scripted long turn');
    await stream.until((r) => r.frames().length >= 2);
    let emits = 0;
    await cancelAndCheck(stream, c.roleId, async () => {
      await scripted.changes.until(() => scripted.running === 0, 'the scripted runtime to return');
      emits = scripted.emits;
    });
    // The later turn ran on another runtime: the cancelled one emitted nothing meanwhile.
    expect(scripted.emits).toBe(emits);
    expect(scripted.emits).toBeLessThan(LONG.length);
    expect(scripted.emitsAfterAbort).toBe(0);
  });

  it('local runtime: cancel aborts the pending tool_url call', async () => {
    const stream = await c.send('/slow-tool please');
    await stream.until((r) => r.frames().some((frame) => frame.event?.type === 'tool_call' && (frame.event.content as { tool: string }).tool === 'tool_url'));
    await tool.changes.until(() => tool.received === 1, 'the tool to be called');
    await cancelAndCheck(stream, c.roleId, async () => {
      await tool.changes.until(() => tool.closedByClient === 1, 'the tool request to be closed');
      await local.changes.until(() => local.running === 0, 'the local runtime to return');
    });
    expect(tool.received).toBe(1); // step 2 never called the tool
    expect(stream.frames().some((frame) => frame.event?.type === 'tool_result' && (frame.event.content as { tool: string }).tool === 'tool_url')).toBe(false);
  });

  it('container runtime: cancel closes the request to the container', async () => {
    const stream = await c.send('slow 300', { roleId: 'exec-cto' });
    await stream.until((r) => r.frames().length >= 1);
    const runId = String(stream.headers['x-org-run-id']);
    await cancelAndCheck(stream, 'exec-cto', () => agentLogged.until(() => agentLog.includes(`container-agent: client closed (run ${runId})`), 'the container to see the request closed'));
    expect(stream.frames().some((frame) => frame.event?.type === 'complete')).toBe(false);
  });

  it('LLM runtime: cancel closes the stream from the model provider', async () => {
    const before = llm.clientClosed;
    const requests = llm.requests.length;
    const stream = await c.send('write a long essay', { roleId: 'exec-cmo' });
    await stream.until((r) => r.frames().some((frame) => frame.event?.type === 'text'));
    await cancelAndCheck(stream, 'exec-cmo', () => llm.changes.until(() => llm.clientClosed === before + 1, 'the provider stream to be closed'));
    expect(llm.requests.length).toBe(requests + 2); // the cancelled turn's one request, and the later turn's
  });

  it('a queued run can be cancelled before it starts; it never reaches the runtime', async () => {
    const first = await c.send('scripted first');
    await first.until((r) => r.frames().length >= 1);
    const second = await c.send('scripted second');
    const secondId = String(second.headers['x-org-run-id']);
    expect((await cancel(secondId)).statusCode).toBe(202);
    await second.ended;
    // Only the note that it waited, then the cancel: the runtime never saw it.
    expect(second.frames().map((frame) => frame.event)).toEqual([
      expect.objectContaining({ type: 'thought', content: expect.stringMatching(/^waiting for the node's current turn \(run /) }),
      expect.objectContaining({ type: 'error', content: expect.objectContaining({ message: 'cancelled' }) }),
    ]);
    // cancelAndCheck runs a later turn on the node: a queued turn would have started before it.
    await cancelAndCheck(first, c.roleId);
    expect(scripted.log).not.toContain('start scripted second');
    expect((await c.settled(secondId)).status).toBe('error');
  });

  it('cancel of a finished run → 409, of an unknown run → 404, a bad id → 400, by a viewer → 403', async () => {
    const done = await c.send('hello there');
    await done.ended;
    const runId = String(done.headers['x-org-run-id']);
    expect(done.frames().at(-1)?.event?.type).toBe('complete');
    const finished = await cancel(runId);
    expect(finished.statusCode).toBe(409);
    expect(finished.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(finished.json()).toMatchObject({ status: 409, code: 'conflict' });
    expect((await c.agentMessage(runId))?.status).toBe('complete');

    const unknown = await cancel('3f1a2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'not_found' });
    expect((await cancel('nope')).statusCode).toBe(400);

    const viewer = await c.t.createUser('cancel-viewer@example.com');
    await c.t.app.members.set(c.structure.id, viewer.id, 'viewer');
    const running = await c.send('scripted watched by a viewer');
    await running.until((r) => r.frames().length >= 1);
    const runningId = String(running.headers['x-org-run-id']);
    const refused = await cancel(runningId, viewer.token);
    expect(refused.statusCode).toBe(403);
    expect(c.t.app.chat.run(runningId)?.finished).toBe(false);
    await cancelAndCheck(running, c.roleId);
  });
});
