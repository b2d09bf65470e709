/**
 * The streaming chat endpoint over a real listening server (API.md §6): the exact bytes
 * of a short turn, the headers, the keepalive comment, problems that come before any
 * stream, a client that drops mid-turn, and resuming a run after `Last-Event-ID` —
 * live, finished, and after a restart of the instance on the same home.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../src/core/chat/types.js';
import { createLocalRuntime } from '../src/core/runtimes/local.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import { dispatchRuntime, expectProblem, startChat, type ChatFixture } from './helpers/chat.js';
import { typesOf, type SseResponse } from './helpers/sse.js';
import { UUID } from './helpers/shapes.js';

const FIXED = '2030-01-02T03:04:05.678Z';

const SHORT: EventInput[] = [
  { type: 'thought', content: 'thinking' },
  { type: 'text', content: 'Hello' },
  { type: 'text', content: ' "world"\n' },
  { type: 'complete', content: { summary: 'said hello', artifacts: [] } },
];

/** Eight events, 120 ms apart: about a second per turn. */
const SLOW: EventInput[] = [
  { type: 'thought', content: 'step 0' },
  ...Array.from({ length: 6 }, (_, index): EventInput => ({ type: 'text', content: `part ${index + 1} ` })),
  { type: 'complete', content: { summary: 'slow turn done', artifacts: [] } },
];

const runtime = () =>
  dispatchRuntime({ short: createScriptedRuntime(SHORT), slow: createScriptedRuntime(SLOW, { delayMs: 120 }) }, createLocalRuntime());

describe('chat stream: exact bytes', () => {
  let c: ChatFixture;
  beforeAll(async () => {
    c = await startChat({ deps: { runtime, clock: { now: () => new Date(FIXED) } } });
  });
  afterAll(async () => {
    await c.close();
  });

  it('writes `id: n` and `data: {json}` frames then ends after the terminal event, with the stream headers', async () => {
    const response = await c.send('short please');
    await response.ended;
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-accel-buffering']).toBe('no');
    const runId = response.headers['x-org-run-id'];
    expect(runId).toMatch(UUID);
    const expected = [
      `id: 1\ndata: {"type":"thought","content":"thinking","timestamp":"${FIXED}"}\n\n`,
      `id: 2\ndata: {"type":"text","content":"Hello","timestamp":"${FIXED}"}\n\n`,
      `id: 3\ndata: {"type":"text","content":" \\"world\\"\\n","timestamp":"${FIXED}"}\n\n`,
      `id: 4\ndata: {"type":"complete","content":{"summary":"said hello","artifacts":[]},"timestamp":"${FIXED}"}\n\n`,
    ].join('');
    expect(response.text).toBe(expected);

    // The same run is in the history, complete, with the same events.
    const agent = await c.agentMessage(String(runId));
    expect(agent).toMatchObject({ status: 'complete', summary: 'said hello', text: 'Hello "world"\n', completed_at: FIXED });
    expect(agent?.events).toEqual(response.frames().map((frame) => frame.event));
  });
});

describe('chat stream', () => {
  let c: ChatFixture;
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-chat-stream-'));
    c = await startChat({ home, deps: { runtime }, config: { keepaliveMs: 100 } });
  });
  afterAll(async () => {
    await c.close();
    await rm(home, { recursive: true, force: true });
  });

  it('sends `: keepalive` comments while a turn runs, and ends with the terminal event', async () => {
    const response = await c.send('slow turn');
    await response.until((r) => r.comments().filter((comment) => comment === 'keepalive').length >= 2, 5000);
    await response.ended;
    expect(response.text).toContain('\n\n: keepalive\n\n');
    const frames = response.frames();
    expect(typesOf(frames)).toEqual(['thought', 'text', 'text', 'text', 'text', 'text', 'text', 'complete']);
    expect(frames.map((frame) => frame.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    // Nothing follows the terminal event.
    expect(response.text.endsWith(`${JSON.stringify(frames.at(-1)?.event)}\n\n`)).toBe(true);
  });

  it('fails before any stream starts: validation, auth, unknown node, non-member, viewer, media type', async () => {
    const viewer = await c.t.createUser('viewer@example.com');
    await c.t.app.members.set(c.structure.id, viewer.id, 'viewer');
    const stranger = await c.t.createUser('stranger@example.com');
    const before = (await c.history({ limit: 500 })).length;

    const cases: [Promise<SseResponse>, number, string][] = [
      [c.send('', {}), 400, 'invalid_request'],
      [c.send('x', { body: { structure_id: c.structure.id, role_id: c.roleId } }), 400, 'invalid_request'],
      [c.send('x', { body: { structure_id: 'not-a-uuid', role_id: c.roleId, message: 'hi' } }), 400, 'invalid_request'],
      [c.send('x', { roleId: 'Bad Role' }), 400, 'invalid_request'],
      [c.send('x'.repeat(100_001)), 400, 'invalid_request'],
      [c.send('hi', { token: 'org_u_unknownunknownunknownunknownunknown' }), 401, 'unauthorized'],
      [c.open('/api/org/chat/message', { method: 'POST', body: { structure_id: c.structure.id, role_id: c.roleId, message: 'hi' } }), 401, 'unauthorized'],
      [c.send('hi', { roleId: 'exec-nobody' }), 404, 'not_found'],
      [c.send('hi', { structureId: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found'],
      [c.send('hi', { token: stranger.token }), 404, 'not_found'],
      [c.send('hi', { token: viewer.token }), 403, 'forbidden'],
      [
        c.open('/api/org/chat/message', { method: 'POST', token: c.owner.token, body: 'message=hi', headers: { 'content-type': 'text/plain' } }),
        415,
        'unsupported_media_type',
      ],
    ];
    for (const [pending, status, code] of cases) {
      const response = await pending;
      const body = await expectProblem(response, status, code);
      if (status === 400) expect(body.errors ?? body.detail).toBeTruthy();
    }
    // No run was started by any of them.
    expect((await c.history({ limit: 500 })).length).toBe(before);
    const unauthenticated = await c.open('/api/org/chat/message', { method: 'POST', body: { structure_id: c.structure.id, role_id: c.roleId, message: 'hi' } });
    await unauthenticated.ended;
    expect(unauthenticated.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('a client that drops mid-turn does not stop the turn: history shows it complete with every event', async () => {
    const response = await c.send('slow and dropped');
    await response.until((r) => r.frames().length >= 2);
    const runId = String(response.headers['x-org-run-id']);
    response.abort();
    expect(c.t.app.chat.run(runId)?.finished).toBe(false);
    await response.ended;
    expect(response.frames().length).toBeLessThan(8);
    const agent = await c.settled(runId);
    expect(agent.status).toBe('complete');
    expect(agent.summary).toBe('slow turn done');
    expect(agent.events.map((event) => event.type)).toEqual(['thought', 'text', 'text', 'text', 'text', 'text', 'text', 'complete']);
    expect(agent.text).toBe('part 1 part 2 part 3 part 4 part 5 part 6 ');
    const user = (await c.history({ limit: 500 })).find((message) => message.sender === 'user' && message.run_id === runId);
    expect(user?.text).toBe('slow and dropped');
  });

  it('resume: replays only the events after Last-Event-ID, then follows live to the terminal event', async () => {
    const first = await c.send('slow resumed');
    await first.until((r) => r.frames().length >= 2);
    const runId = String(first.headers['x-org-run-id']);
    first.abort();
    const seen = first.frames();
    const last = seen.at(-1)!.id!;
    // Still running: what follows is replay, then live.
    expect(c.t.app.chat.run(runId)?.finished).toBe(false);

    const resumed = await c.resume(runId, last);
    expect(resumed.status).toBe(200);
    expect(resumed.headers['x-org-run-id']).toBe(runId);
    expect(resumed.headers['content-type']).toMatch(/^text\/event-stream/);
    await resumed.ended;
    const frames = resumed.frames();
    const ids = frames.map((frame) => Number(frame.id));
    expect(ids[0]).toBe(Number(last) + 1);
    expect(ids).toEqual(Array.from({ length: 8 - Number(last) }, (_, index) => Number(last) + 1 + index));
    expect(frames.at(-1)?.event?.type).toBe('complete');

    // Without the header: all of them, identical to what the history holds.
    const all = await c.resume(runId);
    await all.ended;
    expect(all.frames().map((frame) => frame.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    const agent = await c.settled(runId);
    expect(all.frames().map((frame) => frame.event)).toEqual(agent.events);
    // Seen before + resumed = the whole run, no gap and no duplicate.
    expect([...seen, ...frames].map((frame) => frame.event)).toEqual(agent.events);

    // After the last event of a finished run: 204, which tells an EventSource to stop reconnecting.
    const none = await c.resume(runId, '8');
    await none.ended;
    expect(none.status).toBe(204);
    expect(none.frames()).toEqual([]);
  });

  it('resume refuses a bad Last-Event-ID, an unknown run and a stranger before streaming', async () => {
    const response = await c.send('short');
    await response.ended;
    const runId = String(response.headers['x-org-run-id']);
    await expectProblem(await c.resume(runId, 'abc'), 400, 'invalid_request');
    await expectProblem(await c.resume('7b0d1e7e-3c59-4b7e-9d43-0c0e9e0b2f11'), 404, 'not_found');
    await expectProblem(await c.resume('not-a-run'), 400, 'invalid_request');
    const stranger = await c.t.createUser('stranger2@example.com');
    await expectProblem(await c.resume(runId, undefined, stranger.token), 404, 'not_found');
  });

  it('resume of a run of a previous process replays it from history', async () => {
    const response = await c.send('slow before restart');
    await response.ended;
    const runId = String(response.headers['x-org-run-id']);
    const original = response.frames();
    expect(original).toHaveLength(8);

    await c.close(); // the home is this file's, so it stays
    const next = await startChat({ home, deps: { runtime } });
    try {
      // The owner of the first process is a user of the second (same home); reuse the token.
      const all = await next.open(`/api/org/chat/runs/${runId}/events`, { token: c.owner.token });
      await all.ended;
      expect(all.status).toBe(200);
      expect(all.headers['x-org-run-id']).toBe(runId);
      expect(all.frames()).toEqual(original);
      expect(all.text).toBe(response.text.replaceAll(': keepalive\n\n', ''));

      const later = await next.open(`/api/org/chat/runs/${runId}/events`, { token: c.owner.token, headers: { 'last-event-id': '5' } });
      await later.ended;
      expect(later.frames()).toEqual(original.slice(5));
    } finally {
      c = next; // closed by afterAll
    }
  });
});
