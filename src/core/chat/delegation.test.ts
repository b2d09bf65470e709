import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDirectory } from '../../../test/helpers/chat-directory.js';
import type { AgentRuntime, Emit, Turn, TurnTools } from '../runtimes/types.js';
import type { DelegateResult } from '../schemas/delegation.js';
import { NodeActivity } from '../structures/activity.js';
import type { LogEntry, NodeRecord } from '../structures/types.js';
import { ChatEngine, type ChatEngineOptions } from './engine.js';
import { createFsChatStore } from './fs-store/index.js';
import type { ChatDirectory, ChatSkills } from './ports.js';
import type { Run } from './run.js';
import type { ChatEvent } from './types.js';

const STRUCTURE = '22222222-2222-4222-8222-222222222222';
const id = (n: number) => `bbbbbbbb-0000-4000-8000-00000000000${n}`;
const node = (n: number, roleId: string, parent: number | null): NodeRecord => ({
  id: id(n),
  role_id: roleId,
  label: `Label of ${roleId}`,
  parent_id: parent === null ? null : id(parent),
  x: 0,
  y: 0,
  starting_context: '',
  container_url: null,
  created_at: '2030-01-01T00:00:00.000Z',
});
const AGENTS = [node(1, 'team-lead', null), node(2, 'team-a', 1), node(3, 'team-b', 1), node(4, 'team-c', 2), node(5, 'team-d', 4), node(6, 'team-e', 5)];

/**
 * A runtime driven by its message, one command per line: `delegate <role>: <task>` hands
 * the task over and waits for its end; `hold <name>` waits until the test releases it (or
 * the run is stopped); anything else is ignored. It completes with every delegation's
 * outcome in its summary.
 */
function commandRuntime() {
  const gates = new Map<string, () => void>();
  const holding = new Map<string, () => void>();
  const aborted: string[] = [];
  const results = new Map<string, DelegateResult[]>();
  const runtime: AgentRuntime = {
    name: 'commands',
    async run(turn: Turn, emit: Emit, tools: TurnTools, signal: AbortSignal) {
      const outcomes: DelegateResult[] = [];
      results.set(turn.run_id, outcomes);
      for (const line of turn.message.split('\n')) {
        if (signal.aborted) return;
        const delegation = /^delegate ([a-z-]+): (.+)$/.exec(line);
        if (delegation) outcomes.push(await tools.delegate(delegation[1]!, delegation[2]!));
        const hold = /^hold (\S+)$/.exec(line);
        if (hold) {
          const name = hold[1]!;
          await new Promise<void>((resolve) => {
            gates.set(name, resolve);
            holding.get(name)?.();
            signal.addEventListener('abort', () => {
              aborted.push(name);
              resolve();
            });
          });
        }
      }
      if (signal.aborted) return;
      const summary = outcomes.map((outcome) => `${outcome.role_id}:${outcome.status}:${outcome.summary}`).join(' | ') || `did ${turn.message}`;
      await emit({ type: 'complete', content: { summary, artifacts: [] } });
    },
  };
  return {
    runtime,
    aborted,
    results,
    release: (name: string) => gates.get(name)?.(),
    /** Resolves once a turn holds at `hold <name>`. */
    holding: (name: string) => (gates.has(name) ? Promise.resolve() : new Promise<void>((resolve) => holding.set(name, resolve))),
  };
}

describe('delegation between nodes of a structure', () => {
  let dir: string;
  let logged: Omit<LogEntry, 'id' | 'created_at'>[];
  let engines: ChatEngine[];
  let failures: unknown[];
  let activity: NodeActivity;

  const directory: ChatDirectory = testDirectory(STRUCTURE, AGENTS, () => dir, () => logged);
  const skills: ChatSkills = { search: async () => [], read: async () => undefined, readRaw: async () => undefined, learnDraft: async (draft) => draft.slug };
  const makeEngine = (runtime: AgentRuntime, options: Partial<ChatEngineOptions> = {}) => {
    const engine = new ChatEngine({
      directory,
      activity,
      skills,
      store: createFsChatStore({ stateDir: dir, nodeDir: directory.nodeDir }),
      router: () => runtime,
      log: (level, message, fields) => {
        if (level === 'error') failures.push({ message, fields });
      },
      ...options,
    });
    engines.push(engine);
    return engine;
  };
  const send = (engine: ChatEngine, roleId: string, message: string, startedBy?: string) =>
    engine.send({ structureId: STRUCTURE, roleId, message, ...(startedBy ? { author: { kind: 'user' as const, id: startedBy, label: `${startedBy}@example.com` } } : {}) });
  const events = (run: Run): ChatEvent[] => run.decoded();
  const delegateEvents = (run: Run) => events(run).filter((event) => (event.type === 'tool_call' || event.type === 'tool_result') && event.content.tool === 'delegate');
  /** Resolves once no node is working (a node turns idle after its run's end is recorded). */
  const allIdle = (engine: ChatEngine) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (AGENTS.every((agent) => activity.stateOf(agent.id) === 'idle')) {
          stop();
          resolve();
        }
      };
      const stop = engine.observe({ nodeState: check });
      check();
    });
  /** Every history message of a node, oldest first. */
  const historyOf = async (engine: ChatEngine, roleId: string) => (await engine.history(STRUCTURE, roleId, { limit: 50 })).reverse();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-delegation-'));
    logged = [];
    failures = [];
    engines = [];
    activity = new NodeActivity();
  });
  afterEach(async () => {
    for (const engine of engines) await engine.close(0);
    expect(failures).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the delegated task as an ordinary turn of the target, shown in the parent stream as tool_call (with the new run id) and tool_result (with its summary)', async () => {
    const commands = commandRuntime();
    const engine = makeEngine(commands.runtime);
    const root = await send(engine, 'team-lead', 'delegate team-a: count the chairs');
    await root.done;
    const [call, result] = delegateEvents(root);
    expect(call).toMatchObject({ type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'team-a', message: 'count the chairs' } } });
    const childId = (call!.content as { args: { run_id: string } }).args.run_id;
    expect(childId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result).toMatchObject({ type: 'tool_result', content: { tool: 'delegate', result: { run_id: childId, role_id: 'team-a', status: 'complete', summary: 'did count the chairs', artifacts: [] } } });
    expect(root.terminal).toMatchObject({ type: 'complete', content: { summary: 'team-a:complete:did count the chairs' } });
    // The child is an ordinary run of team-a, with its own history.
    const [user, agent] = await historyOf(engine, 'team-a');
    expect(user).toMatchObject({
      sender: 'user',
      run_id: childId,
      text: 'count the chairs',
      origin: 'delegation:team-lead',
      author: { kind: 'node', id: 'team-lead', label: 'Label of team-lead' },
      delegated_by: { role_id: 'team-lead', run_id: root.id, root_run_id: root.id },
    });
    expect(agent).toMatchObject({ sender: 'agent', run_id: childId, status: 'complete', summary: 'did count the chairs' });
    // The workspace log records it; both nodes are idle again.
    expect(logged).toContainEqual(expect.objectContaining({ type: 'delegation', role_id: 'team-lead', run_id: root.id, delegation: { role_id: 'team-a', run_id: childId } }));
    expect(activity.stateOf(id(1))).toBe('idle');
    expect(activity.stateOf(id(2))).toBe('idle');
  });

  it('a grandchild carries the root run id; the chain reaches back through every hop', async () => {
    const commands = commandRuntime();
    const engine = makeEngine(commands.runtime);
    const root = await send(engine, 'team-lead', 'delegate team-a: delegate team-c: sweep');
    await root.done;
    expect(root.terminal).toMatchObject({ type: 'complete', content: { summary: 'team-a:complete:team-c:complete:did sweep' } });
    const childId = (delegateEvents(root)[0]!.content as { args: { run_id: string } }).args.run_id;
    const [grandchild] = await historyOf(engine, 'team-c');
    expect(grandchild).toMatchObject({ origin: 'delegation:team-a', delegated_by: { role_id: 'team-a', run_id: childId, root_run_id: root.id } });
  });

  it('refuses a delegation to itself, back up its chain, to an unknown role, past the depth limit and past 8 per turn: tool_call and tool_result with run_id null, and the turn goes on', async () => {
    const commands = commandRuntime();
    const engine = makeEngine(commands.runtime, { delegationDepth: 3 });
    const self = await send(engine, 'team-a', 'delegate team-a: again');
    await self.done;
    expect(delegateEvents(self)).toEqual([
      expect.objectContaining({ type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'team-a', message: 'again', run_id: null } } }),
      expect.objectContaining({ type: 'tool_result', content: { tool: 'delegate', result: { run_id: null, role_id: 'team-a', status: 'error', summary: 'team-a cannot delegate to itself', artifacts: [], refused: 'self' } } }),
    ]);
    expect(self.terminal?.type).toBe('complete');

    const back = await send(engine, 'team-lead', 'delegate team-a: delegate team-lead: loop');
    await back.done;
    expect(back.terminal).toMatchObject({ content: { summary: expect.stringContaining('team-lead:error:team-lead is already in this delegation chain (team-lead → team-a)') } });

    const unknown = await send(engine, 'team-lead', 'delegate team-nobody: anything');
    await unknown.done;
    expect(delegateEvents(unknown)[1]).toMatchObject({ content: { result: { run_id: null, status: 'error', refused: 'unknown_role', summary: 'there is no node team-nobody in Test' } } });

    const deep = await send(engine, 'team-lead', 'delegate team-a: delegate team-c: delegate team-d: delegate team-e: dig');
    await deep.done;
    expect(deep.terminal).toMatchObject({
      content: { summary: expect.stringContaining('delegating to team-e would go 4 hops below the root run (team-lead → team-a → team-c → team-d → team-e); the most is 3') },
    });

    const many = await send(engine, 'team-lead', Array.from({ length: 9 }, (_, n) => `delegate team-${n % 2 ? 'b' : 'a'}: task ${n + 1}`).join('\n'));
    await many.done;
    const outcomes = commands.results.get(many.id)!;
    expect(outcomes.slice(0, 8).every((outcome) => outcome.status === 'complete')).toBe(true);
    expect(outcomes[8]).toMatchObject({ run_id: null, status: 'error', refused: 'limit', summary: 'this turn has already delegated 8 times, the most one turn may' });
    // Refused delegations started nothing: team-e has no history, and no node is left working.
    expect(await historyOf(engine, 'team-e')).toEqual([]);
    await allIdle(engine);
  });

  it('refuses at once a delegation that would wait on its own chain, naming the cycle', async () => {
    const commands = commandRuntime();
    const engine = makeEngine(commands.runtime);
    // team-b is busy with a root run; team-lead's run delegates to team-b (queued behind it).
    const busy = await send(engine, 'team-b', 'hold b\ndelegate team-lead: help me');
    await commands.holding('b');
    const root = await send(engine, 'team-lead', 'delegate team-b: report');
    const child = await new Promise<string>((resolve) => {
      const stop = root.subscribe(0, (event) => {
        const decoded = JSON.parse(event.json) as ChatEvent;
        if (decoded.type === 'tool_call') {
          stop();
          resolve((decoded.content.args as { run_id: string }).run_id);
        }
      });
    });
    expect(child).toMatch(/^[0-9a-f-]{36}$/);
    // Now team-b's turn delegates to team-lead, whose turn waits for team-b: refused.
    commands.release('b');
    await busy.done;
    expect(delegateEvents(busy)[1]).toMatchObject({
      content: {
        result: {
          run_id: null,
          status: 'error',
          refused: 'cycle',
          summary: 'delegating to team-lead would wait on its own chain: team-b → team-lead → team-b (team-lead is busy with work that is itself waiting on this run)',
        },
      },
    });
    await root.done;
    expect(root.terminal).toMatchObject({ type: 'complete', content: { summary: 'team-b:complete:did report' } });
  });

  it('cancelling a run cancels every live or queued run below it, each ending "cancelled" and naming who stopped it', async () => {
    const commands = commandRuntime();
    const engine = makeEngine(commands.runtime);
    // team-b is busy, so the second delegation below the root waits in its queue.
    const busy = await send(engine, 'team-b', 'hold busy');
    await commands.holding('busy');
    const root = await send(engine, 'team-lead', 'delegate team-a: delegate team-c: hold deep');
    await commands.holding('deep');
    const queued = await engine.delegate(root.where, { roleId: 'team-b', message: 'wait your turn' });
    expect('run' in queued).toBe(true);
    await engine.cancel(root.id, 'cancelled', 'alice@example.com');
    const [a] = (await historyOf(engine, 'team-a')).filter((message) => message.sender === 'agent');
    const [c] = (await historyOf(engine, 'team-c')).filter((message) => message.sender === 'agent');
    for (const message of [a, c]) {
      expect(message).toMatchObject({ status: 'error' });
      expect(message!.events.at(-1)).toMatchObject({ type: 'error', content: { message: 'cancelled', cancelled_by: 'alice@example.com' } });
    }
    const queuedRun = (queued as { run: Run }).run;
    expect(queuedRun.terminal).toMatchObject({ type: 'error', content: { message: 'cancelled', cancelled_by: 'alice@example.com' } });
    expect(commands.aborted).toEqual(['deep']);
    // The queued run never reached the runtime; the busy root run goes on.
    commands.release('busy');
    await busy.done;
    expect(busy.terminal?.type).toBe('complete');
    expect(commands.results.has(queuedRun.id)).toBe(false);
    await allIdle(engine);
  });

  it('a run that ends without waiting for what it delegated stops it', async () => {
    const commands = commandRuntime();
    const engine = makeEngine(commands.runtime);
    const root = await send(engine, 'team-lead', 'hold lead');
    await commands.holding('lead');
    const started = await engine.delegate(root.where, { roleId: 'team-a', message: 'hold orphan' });
    await commands.holding('orphan');
    commands.release('lead');
    const result = await started.result;
    expect(result).toMatchObject({ role_id: 'team-a', status: 'error', summary: 'cancelled' });
    expect((started as { run: Run }).run.terminal).toMatchObject({ content: { message: 'cancelled', cancelled_by: 'delegation:team-lead' } });
  });

  it('refuses a delegation when the person who started the chain may no longer chat in the structure', async () => {
    const commands = commandRuntime();
    const engine = makeEngine(commands.runtime, {
      authority: (_structureId, userId) => (userId === 'user-viewer' ? 'viewer@example.com, who started this work, is a viewer of this structure now' : undefined),
    });
    const root = await send(engine, 'team-lead', 'delegate team-a: tidy up', 'user-viewer');
    await root.done;
    expect(delegateEvents(root)[1]).toMatchObject({ content: { result: { run_id: null, refused: 'authority', summary: 'viewer@example.com, who started this work, is a viewer of this structure now' } } });
    expect(await historyOf(engine, 'team-a')).toEqual([]);
    const allowed = await send(engine, 'team-lead', 'delegate team-a: tidy up', 'user-operator');
    await allowed.done;
    expect(allowed.terminal).toMatchObject({ content: { summary: 'team-a:complete:did tidy up' } });
  });

  it('after a restart, delegated runs are closed like any other: "interrupted by restart", each once', async () => {
    const commands = commandRuntime();
    const first = makeEngine(commands.runtime);
    const root = await send(first, 'team-lead', 'delegate team-a: hold stuck');
    await commands.holding('stuck');
    // A second engine on the same home, as after a crash (the first is never closed before it starts).
    const second = makeEngine(commandRuntime().runtime);
    expect(await second.recover()).toBe(2);
    const [user, agent] = await historyOf(second, 'team-a');
    expect(user).toMatchObject({ delegated_by: { role_id: 'team-lead', run_id: root.id, root_run_id: root.id } });
    expect(agent).toMatchObject({ status: 'error' });
    expect(agent!.events.at(-1)).toMatchObject({ type: 'error', content: { message: 'interrupted by restart' } });
    expect(await second.recover()).toBe(0);
    commands.release('stuck');
  });
});
