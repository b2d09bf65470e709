import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDirectory } from '../../../test/helpers/chat-directory.js';
import type { AgentRuntime, Emit, Turn } from '../runtimes/types.js';
import type { LogEntry, NodeRecord } from '../structures/types.js';
import { decodeEvent } from './encoded.js';
import { parseEvent } from './events.js';
import { ChatEngine, type RuntimeRouter } from './engine.js';
import { createFsChatStore } from './fs-store/index.js';
import type { ChatDirectory, ChatSkills, LearnedDraft } from './ports.js';
import type { EventInput } from './types.js';

const STRUCTURE = '11111111-1111-4111-8111-111111111111';
const node = (id: string, roleId: string, parent: string | null): NodeRecord => ({
  id,
  role_id: roleId,
  label: roleId,
  parent_id: parent,
  x: 0,
  y: 0,
  starting_context: '',
  container_url: null,
  created_at: '2030-01-01T00:00:00.000Z',
});
const AGENTS = [node('aaaaaaaa-0000-4000-8000-000000000001', 'team-lead', null), node('aaaaaaaa-0000-4000-8000-000000000002', 'team-a', 'aaaaaaaa-0000-4000-8000-000000000001'), node('aaaaaaaa-0000-4000-8000-000000000003', 'team-b', 'aaaaaaaa-0000-4000-8000-000000000001')];

/** A runtime driven by the test: each turn waits for `release(message)` before emitting its script. */
function gatedRuntime() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const waiters = new Map<string, () => void>();
  const aborted: string[] = [];
  const runtime = (script: (turn: Turn) => EventInput[]): AgentRuntime => ({
    name: 'gated',
    async run(turn: Turn, emit: Emit, _tools, signal) {
      started.push(turn.message);
      waiters.get(turn.message)?.();
      await new Promise<void>((resolve) => {
        gates.set(turn.message, resolve);
        signal.addEventListener('abort', () => {
          aborted.push(turn.message);
          resolve();
        });
      });
      if (signal.aborted) return;
      for (const event of script(turn)) await emit(event);
    },
  });
  return {
    runtime,
    started,
    aborted,
    release: (message: string) => gates.get(message)?.(),
    /** Resolves once the turn of `message` has started. */
    startedTurn: (message: string) => (started.includes(message) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(message, resolve))),
  };
}

const COMPLETE: EventInput = { type: 'complete', content: { summary: 'done', artifacts: [] } };

describe('ChatEngine', () => {
  let dir: string;
  let logged: Omit<LogEntry, 'id' | 'created_at'>[];
  let drafts: LearnedDraft[];
  let engines: ChatEngine[];
  /** Unexpected failures the engines reported: none, in every test. */
  let failures: { message: string; fields: unknown }[];

  const directory: ChatDirectory = testDirectory(STRUCTURE, AGENTS, () => dir, () => logged);
  const skills: ChatSkills = {
    search: async () => [],
    read: async () => undefined,
    readRaw: async () => undefined,
    learnDraft: async (draft) => {
      drafts.push(draft);
      return `${draft.slug}-stored`;
    },
  };
  const makeEngine = (router: RuntimeRouter) => {
    const engine = new ChatEngine({
      directory,
      activity: { begin: () => undefined, end: () => undefined, stateOf: () => 'idle' },
      skills,
      store: createFsChatStore({ stateDir: dir, nodeDir: directory.nodeDir }),
      router,
      log: (level, message, fields) => {
        if (level === 'error') failures.push({ message, fields });
      },
    });
    engines.push(engine);
    return engine;
  };
  const send = (engine: ChatEngine, message: string, roleId = 'team-a') => engine.send({ structureId: STRUCTURE, roleId, message });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-engine-'));
    logged = [];
    failures = [];
    drafts = [];
    engines = [];
  });
  afterEach(async () => {
    for (const engine of engines) await engine.close(0);
    expect(failures).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it('runs one turn at a time per node, in arrival order; other nodes run meanwhile', async () => {
    const gated = gatedRuntime();
    const engine = makeEngine(() => gated.runtime(() => [COMPLETE]));
    const first = await send(engine, 'first');
    const second = await send(engine, 'second');
    const other = await send(engine, 'other', 'team-b');
    await Promise.all([gated.startedTurn('first'), gated.startedTurn('other')]);
    expect(gated.started).not.toContain('second');
    gated.release('other');
    await other.done;
    expect(gated.started).not.toContain('second');
    gated.release('first');
    await first.done;
    await gated.startedTurn('second');
    gated.release('second');
    await second.done;
    expect(gated.started).toEqual(['first', 'other', 'second']);
  });

  it('a batch of relayed events is numbered in order, written with one commit and published as one batch, whose SSE frames are the bytes of the run file', async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `part ${i} — ✓`);
    const relayed = [
      ...texts.map((text) => {
        const raw = JSON.stringify({ type: 'text', content: text });
        return { event: { type: 'text', content: text } as EventInput, raw, parsed: JSON.parse(raw) as unknown };
      }),
      { event: COMPLETE },
      // After the terminal event: dropped.
      { event: { type: 'text', content: 'after the end' } as EventInput },
    ];
    let gate!: () => void;
    const released = new Promise<void>((resolve) => {
      gate = resolve;
    });
    const engine = makeEngine(() => ({
      name: 'batching',
      async run(_turn, emit) {
        await released;
        await emit.batch!(relayed);
      },
    }));
    const run = await send(engine, 'flood');
    const batches: { seqs: number[]; frames: string }[] = [];
    run.follow(0, (published) => {
      for (const batch of published) batches.push({ seqs: batch.events().map((event) => event.seq), frames: batch.frames.toString('utf8') });
    });
    gate();
    await run.done;
    expect(batches).toHaveLength(1);
    expect(batches[0]!.seqs).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    const decoded = run.decoded();
    expect(decoded.map((event) => (event.type === 'text' ? event.content : event.type))).toEqual([...texts, 'complete']);
    // One timestamp for the batch, and the frames carry each event's JSON as stored.
    expect(new Set(decoded.map((event) => event.timestamp)).size).toBe(1);
    expect(batches[0]!.frames).toBe(run.eventsAfter(0).map((event) => `id: ${event.seq}\ndata: ${event.json}\n\n`).join(''));
    // On disk, as published: the location comment, then the very frames the stream got.
    const file = await readFile(join(dir, 'runs', run.id.slice(0, 2), `${run.id}.sse`), 'utf8');
    expect(file).toBe(`: ${JSON.stringify({ run_id: run.id, structure_id: STRUCTURE, node_id: run.nodeId, role_id: 'team-a' })}\n\n${batches[0]!.frames}`);
    // And read back so by a store of its own, as after a restart.
    const fresh = createFsChatStore({ stateDir: dir, nodeDir: directory.nodeDir });
    expect((await fresh.events(run.id, 0)).map((event) => [event.seq, event.json])).toEqual(run.eventsAfter(0).map((event) => [event.seq, event.json]));
    await fresh.close();
    const history = await engine.history(STRUCTURE, 'team-a', { limit: 1 });
    expect(history[0]).toMatchObject({ sender: 'agent', status: 'complete', text: texts.join('') });
  });

  it('relayed events are stored and streamed as the JSON text they came in, with their sequence number and timestamp spliced in, between built ones, and read back after a restart', async () => {
    const plain = ['{"type":"text","content":"one "}', '{"type":"thought","content":"naïve \\"q\\" \\u00e9"}', '{"type":"text","content":"two \\n✓"}'];
    // As a relay hands them over: validated, with the text each was parsed from and that parse.
    const relayed = plain.map((raw) => {
      const parsed: unknown = JSON.parse(raw);
      const result = parseEvent(parsed);
      if (!result.ok) throw new Error(result.message);
      return { event: result.event, raw, parsed };
    });
    const toolCall: EventInput = { type: 'tool_call', content: { tool: 'search', args: null } };
    const engine = makeEngine(() => ({
      name: 'relaying',
      async run(_turn, emit) {
        await emit.batch!([{ event: toolCall }, ...relayed.slice(0, 2), { event: { type: 'text', content: 'parsed ' } }, ...relayed.slice(2), { event: COMPLETE }]);
      },
    }));
    const run = await send(engine, 'bytes');
    await run.done;
    const events = run.eventsAfter(0);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    const timestamp = decodeEvent(events[0]!).timestamp;
    // The relayed events' JSON is the container's text, the timestamp spliced before the closing brace.
    expect([events[1]!.json, events[2]!.json, events[4]!.json]).toEqual(plain.map((text) => `${text.slice(0, -1)},"timestamp":"${timestamp}"}`));
    expect(run.decoded().map((event) => event.content)).toEqual([toolCall.content, 'one ', 'naïve "q" é', 'parsed ', 'two \n✓', COMPLETE.content]);
    const fresh = createFsChatStore({ stateDir: dir, nodeDir: directory.nodeDir });
    expect((await fresh.events(run.id, 0)).map((event) => [event.seq, event.json])).toEqual(events.map((event) => [event.seq, event.json]));
    await fresh.close();
    const history = await engine.history(STRUCTURE, 'team-a', { limit: 1 });
    expect(history[0]).toMatchObject({ sender: 'agent', status: 'complete', text: 'one parsed two \n✓' });
  });

  it('cancels a queued run before it reaches the runtime, and a running one by aborting the runtime', async () => {
    const gated = gatedRuntime();
    const engine = makeEngine(() => gated.runtime(() => [{ type: 'text', content: 'too late' }, COMPLETE]));
    const running = await send(engine, 'running');
    const queued = await send(engine, 'queued');
    await gated.startedTurn('running');
    await engine.cancel(queued.id);
    await engine.cancel(running.id);
    await Promise.all([running.done, queued.done]);
    expect(running.decoded().map((event) => [event.type, event.content])).toEqual([['error', { message: 'cancelled' }]]);
    expect(queued.decoded().map((event) => [event.type, event.content])).toEqual([
      ['thought', `waiting for the node's current turn (run ${running.id})`],
      ['error', { message: 'cancelled' }],
    ]);
    expect(gated.aborted).toEqual(['running']);
    expect(gated.started).toEqual(['running']);
    await expect(engine.cancel(running.id)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('ends a turn whose runtime stops without a terminal event, or throws, with an error', async () => {
    const engine = makeEngine((target) => ({
      name: 'faulty',
      async run(_turn, emit) {
        await emit({ type: 'thought', content: 'hm' });
        if (target.role_id === 'team-b') throw new Error('tool crashed');
      },
    }));
    const silent = await send(engine, 'silent');
    const crashing = await send(engine, 'crash', 'team-b');
    await Promise.all([silent.done, crashing.done]);
    expect(silent.terminal).toMatchObject({ type: 'error', content: { message: 'the faulty runtime ended without a complete or error event' } });
    expect(crashing.terminal).toMatchObject({ type: 'error', content: { message: 'tool crashed' } });
  });

  it('records decisions and milestones in the workspace log, and the outcome of learning before complete', async () => {
    const engine = makeEngine(() => ({
      name: 'learner',
      async run(_turn, emit) {
        await emit({ type: 'milestone', content: { title: 'Found it' } });
        await emit({ type: 'skill_learned', content: { slug: 'find-it', name: 'Find it' } });
        await emit({ type: 'decision', content: { title: 'Go', body: 'because' } });
        await emit(COMPLETE);
      },
    }));
    const run = await send(engine, 'find the thing');
    await run.done;
    expect(run.decoded().map((event) => event.type)).toEqual(['milestone', 'decision', 'skill_learned', 'complete']);
    expect(run.decoded()[2]).toMatchObject({ content: { slug: 'find-it-stored', name: 'Find it', stored: true } });
    expect(drafts.map((draft) => draft.slug)).toEqual(['find-it']);
    expect(logged.map((entry) => [entry.type, entry.title, entry.run_id])).toEqual([
      ['milestone', 'Found it', run.id],
      ['decision', 'Go', run.id],
    ]);
  });

  it('serves history with every event of each agent message, also while a turn runs', async () => {
    const gated = gatedRuntime();
    const engine = makeEngine(() => gated.runtime(() => [{ type: 'text', content: 'Hello' }, COMPLETE]));
    const run = await send(engine, 'say hello');
    await gated.startedTurn('say hello');
    const during = await engine.history(STRUCTURE, 'team-a', { limit: 10 });
    expect(during.map((message) => [message.sender, message.status])).toEqual([
      ['agent', 'running'],
      ['user', 'complete'],
    ]);
    gated.release('say hello');
    await run.done;
    const after = await engine.history(STRUCTURE, 'team-a', { limit: 10 });
    expect(after[0]).toMatchObject({ sender: 'agent', status: 'complete', text: 'Hello', summary: 'done' });
    expect(after[0]!.events.map((event) => event.type)).toEqual(['text', 'complete']);
    const replay = await engine.replay(run.id, 1);
    expect(replay.events.map(decodeEvent).map((event) => event.type)).toEqual(['complete']);
  });

  it('after a process stops mid-turn, the next one closes the run once with "interrupted by restart"', async () => {
    const gated = gatedRuntime();
    const first = makeEngine(() => gated.runtime(() => [COMPLETE]));
    const run = await send(first, 'never finishes');
    await gated.startedTurn('never finishes');
    // A second engine on the same home, as after a crash (the first is never closed before it starts).
    const second = makeEngine(() => gated.runtime(() => [COMPLETE]));
    expect(await second.recover()).toBe(1);
    const [agent] = await second.history(STRUCTURE, 'team-a', { limit: 1 });
    expect(agent).toMatchObject({ run_id: run.id, status: 'error' });
    expect(agent!.events.map((event) => [event.type, event.content])).toEqual([['error', { message: 'interrupted by restart' }]]);
    expect(await second.locate(run.id)).toMatchObject({ runId: run.id, roleId: 'team-a' });
    gated.release('never finishes');
  });
});
