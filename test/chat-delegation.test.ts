/**
 * Delegation over HTTP with container agents (API.md §10): the example agent as a real
 * child process delegates with the `delegation` credentials of its turn; the delegated
 * turn is an ordinary turn of its node, shown in the delegating run's stream; a holding
 * container keeps its run open while the test uses its token against every kind of
 * route, in and out of its structure, and after the run; a cancel from the top reaches
 * the delegated container run.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentProcess, type AgentProcess } from './helpers/agent-process.js';
import { startChat, type ChatFixture } from './helpers/chat.js';
import { startHoldingContainer, type HoldingContainer } from './helpers/holding-container.js';
import type { Frame, SseResponse } from './helpers/sse.js';

const delegateFrames = (stream: SseResponse) =>
  stream.frames().filter((frame) => (frame.event?.type === 'tool_call' || frame.event?.type === 'tool_result') && (frame.event.content as { tool: string }).tool === 'delegate');
const contentOf = (frame: Frame | undefined) => frame?.event?.content as { args?: Record<string, unknown>; result?: Record<string, unknown> };

describe('delegation from container agents over HTTP', () => {
  let c: ChatFixture;
  let agent: AgentProcess;
  let holder: HoldingContainer;
  let other: { id: string };

  const setContainer = async (roleId: string, url: string | null) => {
    const response = await c.t.server.inject({ method: 'PATCH', url: `/api/org/structures/${c.structure.id}/agents/${roleId}`, headers: c.t.auth(c.owner.token), payload: { container_url: url } });
    expect(response.statusCode, response.body).toBe(200);
  };
  /** A request with a bearer over real HTTP; resolves with its status and parsed body. */
  const call = async (token: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await c.open(path, { method, token, ...(body === undefined ? {} : { body }) });
    return { status: response.status, body: await response.json().catch((): Record<string, unknown> => ({})) };
  };

  beforeAll(async () => {
    agent = await startAgentProcess();
    holder = await startHoldingContainer();
    c = await startChat();
    other = await c.t.createStructure(c.owner.token, 'exec-team', 'Other');
    await setContainer('exec-ceo', agent.url);
    await setContainer('exec-coo', holder.url);
    await setContainer('exec-cto', agent.url);
  }, 60_000);
  afterAll(async () => {
    // Turns still held end first, so that closing the instance waits for nothing.
    await holder?.close();
    await agent?.stop();
    await c?.close();
  });

  it('the example agent delegates a line "delegate to <role_id>: <task>": the task runs as a turn of that node and the delegating stream shows it', async () => {
    const stream = await c.send('Close March.\ndelegate to exec-cfo: Close the books for March', { roleId: 'exec-ceo' });
    expect(stream.status).toBe(200);
    await stream.ended;
    const [call, result] = delegateFrames(stream);
    expect(contentOf(call).args).toMatchObject({ role_id: 'exec-cfo', message: 'Close the books for March', run_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const childId = contentOf(call).args!.run_id as string;
    expect(contentOf(result).result).toMatchObject({ run_id: childId, role_id: 'exec-cfo', status: 'complete', summary: expect.any(String) });
    const last = stream.frames().at(-1)?.event;
    expect(last).toMatchObject({ type: 'complete', content: { summary: expect.stringContaining(`exec-cfo did it: ${String(contentOf(result).result!.summary)}`) } });
    // The task is an ordinary turn of the CFO: its own run and history, marked as delegated.
    const history = await c.history({ roleId: 'exec-cfo' });
    const user = history.find((message) => message.sender === 'user' && message.run_id === childId);
    expect(user).toMatchObject({ text: 'Close the books for March', origin: 'delegation:exec-ceo', delegated_by: { role_id: 'exec-ceo', run_id: stream.headers['x-org-run-id'], root_run_id: stream.headers['x-org-run-id'] } });
    expect(await c.agentMessage(childId)).toMatchObject({ status: 'complete' });
  });

  it('a delegation the rules refuse answers the agent 409 delegation_refused, and the delegating stream shows it with run_id null', async () => {
    const stream = await c.send('delegate to exec-ceo: do it yourself', { roleId: 'exec-ceo' });
    await stream.ended;
    const [call, result] = delegateFrames(stream);
    expect(contentOf(call).args).toEqual({ role_id: 'exec-ceo', message: 'do it yourself', run_id: null });
    expect(contentOf(result).result).toEqual({ run_id: null, role_id: 'exec-ceo', status: 'error', summary: 'exec-ceo cannot delegate to itself', artifacts: [], refused: 'self' });
    expect(stream.frames().at(-1)?.event).toMatchObject({ type: 'complete', content: { summary: 'Delegated 1 task(s). exec-ceo could not: exec-ceo cannot delegate to itself' } });
  });

  it('a container turn carries {api_url, token, expires_at}; the token reaches exactly what §10 allows, 404 outside its structure, 403 elsewhere, 401 after the run', async () => {
    const parent = await c.send('hold for the token tests', { roleId: 'exec-coo' });
    const turn = await holder.turn(1);
    const access = turn.delegation!;
    expect(access.api_url).toBe(c.t.url);
    expect(access.token).toMatch(/^org_run_[0-9A-Za-z]{40}$/);
    expect(Date.parse(access.expires_at)).toBeGreaterThan(Date.now());
    const token = access.token;
    const sid = c.structure.id;

    // Allowed: its structure, its structure's history, delegations to other nodes (sync and streamed).
    expect((await call(token, 'GET', `/api/org/structures/${sid}`)).status).toBe(200);
    expect((await call(token, 'GET', `/api/org/chat/history?structure_id=${sid}&role_id=exec-cfo`)).status).toBe(200);
    const synced = await call(token, 'POST', '/api/org/chat/message/sync', { structure_id: sid, role_id: 'exec-cfo', message: 'Close the books for March' });
    expect(synced.status).toBe(200);
    const childId = String(synced.body.run_id);
    const streamed = await c.open('/api/org/chat/message', { method: 'POST', token, body: { structure_id: sid, role_id: 'exec-cmo', message: 'Draft the launch note' } });
    expect(streamed.status).toBe(200);
    await streamed.ended;
    // Its own delegated runs: follow and cancel (this one has finished: 409).
    const replayed = await c.open(`/api/org/chat/runs/${childId}/events`, { token });
    expect(replayed.status).toBe(200);
    await replayed.ended;
    expect(replayed.frames().at(-1)?.event?.type).toBe('complete');
    expect((await call(token, 'POST', `/api/org/chat/runs/${childId}/cancel`)).status).toBe(409);

    // Refused delegations: 409 delegation_refused saying why.
    const self = await call(token, 'POST', '/api/org/chat/message/sync', { structure_id: sid, role_id: 'exec-coo', message: 'again' });
    expect(self).toMatchObject({ status: 409, body: { code: 'delegation_refused', detail: 'exec-coo cannot delegate to itself', refused: 'self' } });
    const unknown = await call(token, 'POST', '/api/org/chat/message/sync', { structure_id: sid, role_id: 'exec-nobody', message: 'hello' });
    expect(unknown).toMatchObject({ status: 409, body: { code: 'delegation_refused', detail: 'there is no node exec-nobody in Acme', refused: 'unknown_role' } });

    // Another structure: unknown to the token.
    expect((await call(token, 'GET', `/api/org/structures/${other.id}`)).status).toBe(404);
    expect((await call(token, 'GET', `/api/org/chat/history?structure_id=${other.id}&role_id=exec-cfo`)).status).toBe(404);
    expect((await call(token, 'POST', '/api/org/chat/message/sync', { structure_id: other.id, role_id: 'exec-cfo', message: 'hi' })).status).toBe(404);
    const foreign = await c.sync('a run of the other structure', { structureId: other.id });
    expect((await call(token, 'GET', `/api/org/chat/runs/${foreign.json<{ run_id: string }>().run_id}/events`)).status).toBe(404);

    // A run of its structure that it did not delegate, and every other route: 403.
    const notMine = await c.sync('a run the token did not start');
    const notMineId = notMine.json<{ run_id: string }>().run_id;
    expect((await call(token, 'GET', `/api/org/chat/runs/${notMineId}/events`)).status).toBe(403);
    expect((await call(token, 'POST', `/api/org/chat/runs/${notMineId}/cancel`)).status).toBe(403);
    for (const [method, path, body] of [
      ['GET', '/api/org/structures', undefined],
      ['GET', '/api/org/whoami', undefined],
      ['GET', `/api/org/structures/${sid}/log`, undefined],
      ['GET', `/api/org/knowledge/skills?structure_id=${sid}`, undefined],
      ['POST', '/api/org/knowledge/search', { query: 'close the books', structure_id: sid }],
      ['POST', `/api/org/structures/${sid}/agents`, { role_id: 'exec-new', label: 'New', parent_id: c.structure.agents[0]!.id }],
      ['POST', `/api/org/structures/${sid}/agents/exec-cfo/mcp-key`, { label: 'k' }],
      ['GET', `/api/org/structures/${sid}/agents/exec-cfo/artifacts`, undefined],
    ] as const) {
      const answer = await call(token, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body).toMatchObject({ code: 'forbidden' });
    }

    // The delegating stream showed both delegations and the two refusals.
    const followed = await c.resume(String(parent.headers['x-org-run-id']));
    await followed.until((response) => delegateFrames(response).length >= 8);
    followed.abort();
    const shown = delegateFrames(followed);
    expect(shown.map((frame) => [frame.event!.type, contentOf(frame).args?.role_id ?? contentOf(frame).result?.role_id])).toEqual([
      ['tool_call', 'exec-cfo'],
      ['tool_result', 'exec-cfo'],
      ['tool_call', 'exec-cmo'],
      ['tool_result', 'exec-cmo'],
      ['tool_call', 'exec-coo'],
      ['tool_result', 'exec-coo'],
      ['tool_call', 'exec-nobody'],
      ['tool_result', 'exec-nobody'],
    ]);

    // Only the token's hash is kept: the token is in no file of the home.
    for (const file of await filesUnder(join(c.t.home, '.org'))) expect(await readFile(file, 'utf8'), file).not.toContain(token);

    // After the run: 401, everywhere.
    holder.release(1);
    await parent.ended;
    expect((await call(token, 'GET', `/api/org/structures/${sid}`)).status).toBe(401);
    expect((await call(token, 'POST', '/api/org/chat/message/sync', { structure_id: sid, role_id: 'exec-cfo', message: 'late' })).status).toBe(401);
  });

  it('while a delegated turn runs, the structure shows both nodes working and the delegated one working for the delegating one', async () => {
    const held = holder.turns.length + 1;
    const stream = await c.send('delegate to exec-coo: hold this for me', { roleId: 'exec-ceo' });
    await holder.turn(held);
    const detail = await c.t.server.inject({ method: 'GET', url: `/api/org/structures/${c.structure.id}`, headers: c.t.auth(c.owner.token) });
    const nodes = detail.json<{ agents: { role_id: string; state: string; working_for?: string }[] }>().agents;
    const byRole = new Map(nodes.map((node) => [node.role_id, node]));
    expect(byRole.get('exec-coo')).toMatchObject({ state: 'working', working_for: 'exec-ceo' });
    expect(byRole.get('exec-ceo')).toMatchObject({ state: 'working' });
    expect(byRole.get('exec-ceo')).not.toHaveProperty('working_for');
    holder.release(held);
    await stream.ended;
    expect(stream.frames().at(-1)?.event).toMatchObject({ type: 'complete', content: { summary: 'Delegated 1 task(s). exec-coo did it: released' } });
  });

  it('a delegation from the run of a person demoted to viewer is refused (409, in the stream too), and starts nothing', async () => {
    const olive = await c.t.createUser(`olive-${Date.now()}@example.com`);
    await c.t.app.members.set(c.structure.id, olive.id, 'operator');
    const held = holder.turns.length + 1;
    const parent = await c.send('hold while I am demoted', { roleId: 'exec-coo', token: olive.token });
    expect(parent.status).toBe(200);
    const access = (await holder.turn(held)).delegation!;
    await c.t.app.members.set(c.structure.id, olive.id, 'viewer');
    const before = (await c.history({ roleId: 'exec-cmo' })).length;
    const refused = await call(access.token, 'POST', '/api/org/chat/message/sync', { structure_id: c.structure.id, role_id: 'exec-cmo', message: 'draft it' });
    expect(refused).toMatchObject({ status: 409, body: { code: 'delegation_refused', refused: 'authority', detail: expect.stringContaining('who started this work, is a viewer of this structure now') } });
    expect((await c.history({ roleId: 'exec-cmo' })).length).toBe(before);
    const followed = await c.resume(String(parent.headers['x-org-run-id']));
    await followed.until((response) => delegateFrames(response).length >= 2);
    followed.abort();
    expect(contentOf(delegateFrames(followed)[1]).result).toMatchObject({ run_id: null, status: 'error', refused: 'authority' });
    holder.release(held);
  });

  it('cancelling the delegating run stops the delegated container run: both end "cancelled", the agent sees its request closed', async () => {
    const stream = await c.send('delegate to exec-cto: stall', { roleId: 'exec-ceo' });
    await stream.until((response) => delegateFrames(response).length >= 1);
    const childId = contentOf(delegateFrames(stream)[0]).args!.run_id as string;
    const child = await c.resume(childId);
    await child.until((response) => response.frames().some((frame) => frame.event?.type === 'thought'));
    const cancelled = await c.open(`/api/org/chat/runs/${String(stream.headers['x-org-run-id'])}/cancel`, { method: 'POST', token: c.owner.token });
    expect(cancelled.status).toBe(202);
    await Promise.all([stream.ended, child.ended, agent.printed(`client closed (run ${childId})`)]);
    expect(stream.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'cancelled' } });
    expect(child.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'cancelled', cancelled_by: expect.stringMatching(/@example\.com$/) } });
    expect(await c.settled(childId, 'exec-cto')).toMatchObject({ status: 'error' });
  });
});

/** Every file under a folder. */
async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) files.push(join(entry.parentPath, entry.name));
  return files;
}
