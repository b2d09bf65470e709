/**
 * The contract every `AgentRuntime` honours, as a runner-agnostic test suite (in the
 * manner of Hono's router `runTest`): `runtimeContract` returns named cases that
 * throw on failure, and a test file registers them with its runner. Also the fakes
 * the cases use — a recording `emit`, in-memory `TurnTools`, a sample turn — which
 * runtime tests elsewhere can reuse.
 *
 * @example
 * const suite = runtimeContract('local', () => createLocalRuntime(), { plain, slow });
 * describe(suite.name, () => suite.cases.forEach((c) => it(c.name, c.run)));
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parseEvent } from '../../src/core/chat/events.js';
import { isTerminal, type EventInput } from '../../src/core/chat/types.js';
import type { AgentRuntime, Emit, Turn, TurnSkill, TurnTools } from '../../src/core/runtimes/types.js';

/** A fake `emit` that records what it is given. */
export interface Recorder {
  events: EventInput[];
  emit: Emit;
  /** Resolves once `count` events were emitted; rejects after `timeoutMs` (a failure bound only). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
}

/** Creates a recording `emit`. */
export function recordingEmit(): Recorder {
  const events: EventInput[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  return {
    events,
    emit(event) {
      events.push(event);
      for (const waiter of [...waiters]) {
        if (events.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      return Promise.resolve();
    },
    waitFor(count, timeoutMs = 20_000) {
      if (events.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${events.length} of ${count} events within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

/** In-memory `TurnTools`: an artifact map, canned search results and skills. */
export interface FakeTools extends TurnTools {
  artifacts: Map<string, { content: string; contentType: string }>;
  /** Queries received by `searchSkills`. */
  searches: string[];
  /** Delegations received by `delegate`, in order. */
  delegations: { roleId: string; message: string }[];
}

/** A skill for the fakes and sample turns. */
export function sampleSkill(slug = 'weekly-report', steps = 2): TurnSkill {
  return {
    slug,
    name: slug.replace(/-/g, ' ').replace(/^./, (first) => first.toUpperCase()),
    score: 0.9,
    status: 'complete',
    tool_url: null,
    summary: `How to do ${slug}.`,
    steps: Array.from({ length: steps }, (_, index) => ({
      id: `s${index + 1}`,
      n: index + 1,
      title: `Step title ${index + 1}`,
      text: index === 0 ? 'Gather the numbers.\n\nDecision: use last week as the baseline.' : `Do part ${index + 1}.`,
    })),
  };
}

/** Creates fake tools; `skills` are what search and read know about. */
export function fakeTools(skills: TurnSkill[] = [sampleSkill()]): FakeTools {
  const artifacts = new Map<string, { content: string; contentType: string }>();
  const searches: string[] = [];
  const delegations: { roleId: string; message: string }[] = [];
  return {
    artifacts,
    searches,
    delegations,
    delegate(roleId, message) {
      delegations.push({ roleId, message });
      if (roleId === 'ceo') return Promise.resolve({ run_id: null, role_id: roleId, status: 'error', summary: 'ceo cannot delegate to itself', artifacts: [], refused: 'self' });
      return Promise.resolve({ run_id: randomUUID(), role_id: roleId, status: 'complete', summary: `${roleId} did: ${message}`, artifacts: [] });
    },
    listPeers() {
      return Promise.resolve({
        self: { role_id: 'ceo', label: 'CEO', state: 'working', parent: null },
        peers: [{ role_id: 'acme-cto', label: 'CTO', state: 'idle', parent: 'ceo' }],
      });
    },
    searchSkills(query, limit = 5) {
      searches.push(query);
      return Promise.resolve(skills.slice(0, limit).map((skill) => ({ slug: skill.slug, score: skill.score, reason: `matched "${query}"` })));
    },
    readSkill(slug) {
      const skill = skills.find((candidate) => candidate.slug === slug);
      if (!skill) return Promise.resolve(undefined);
      const body = skill.steps.map((step) => `## [${step.id}] Step ${step.n}: ${step.title}\n\n${step.text}`).join('\n\n');
      return Promise.resolve({ slug, frontmatter: { name: skill.name, status: skill.status }, body });
    },
    writeArtifact(name, content, contentType) {
      let stored = name;
      for (let n = 2; artifacts.has(stored); n++) stored = name.replace(/(\.[^.]*)?$/, `-${n}$1`);
      artifacts.set(stored, { content: content.toString(), contentType });
      return Promise.resolve(stored);
    },
  };
}

/** A turn for a CEO node of an "Acme" structure; override what the test needs. */
export function sampleTurn(overrides: Partial<Turn> = {}): Turn {
  return {
    run_id: randomUUID(),
    structure: { id: '8f5b2c1e-0000-4000-8000-000000000001', name: 'Acme' },
    node: {
      id: 'node-ceo',
      role_id: 'ceo',
      label: 'CEO',
      starting_context: 'You run Acme, a small company that sells anvils.',
      parent: null,
      children: [{ role_id: 'cto', label: 'CTO' }],
      children_total: 1,
      peers: [],
      peers_total: 0,
    },
    message: 'hello world',
    attachments: [],
    skills: [],
    explicit_skill: null,
    history: [],
    ...overrides,
  };
}

/** The turns a runtime is tested with. */
export interface ContractScenarios {
  /** A turn the runtime completes successfully (quickly). */
  plain: Turn;
  /** A turn that keeps emitting for a while (many events with pauses), so it can be aborted mid-way. */
  slow: Turn;
  /** How many events of the slow turn to wait for before aborting (default 1). */
  abortAfterEvents?: number;
}

/** One case of the contract. */
export interface ContractCase {
  name: string;
  run(): Promise<void>;
}

function assertValid(events: EventInput[]): void {
  for (const [index, event] of events.entries()) {
    const parsed = parseEvent(JSON.parse(JSON.stringify(event)));
    assert.ok(parsed.ok, `event #${index + 1} (${event.type}) is invalid: ${parsed.ok ? '' : parsed.message}`);
  }
}

/**
 * The contract of an `AgentRuntime`: a plain turn ends with exactly one terminal event,
 * last, and it is `complete`; every event is valid; an abort mid-turn makes `run`
 * return and nothing is emitted after it, even once a later turn has run. `makeRuntime`
 * is called in each case, so it may read state prepared by a before-all hook. How fast a
 * cancel takes effect is a benchmark figure (`npm run bench -- chat`), not part of it.
 */
export function runtimeContract(name: string, makeRuntime: () => AgentRuntime | Promise<AgentRuntime>, scenarios: ContractScenarios): { name: string; cases: ContractCase[] } {
  const plainTurn = async () => {
    const runtime = await makeRuntime();
    const recorder = recordingEmit();
    await runtime.run(structuredClone(scenarios.plain), recorder.emit, fakeTools(), new AbortController().signal);
    return recorder.events;
  };
  return {
    name: `${name} runtime contract`,
    cases: [
      {
        name: 'a plain turn ends with exactly one terminal event, last, and it is complete',
        async run() {
          const events = await plainTurn();
          const terminals = events.filter(isTerminal);
          assert.equal(terminals.length, 1, `expected one terminal event, got ${terminals.map((event) => event.type).join(', ') || 'none'}`);
          const last = events.at(-1);
          assert.ok(last && isTerminal(last), 'the terminal event must be the last one');
          assert.equal(last.type, 'complete', `expected complete, got ${JSON.stringify(last)}`);
          assert.ok(events.length >= 2, 'a plain turn shows some work before completing');
        },
      },
      {
        name: 'every event it emits is valid',
        async run() {
          assertValid(await plainTurn());
        },
      },
      {
        name: 'an abort mid-turn makes run() return, and nothing is emitted after it',
        async run() {
          const runtime = await makeRuntime();
          const recorder = recordingEmit();
          const controller = new AbortController();
          const running = runtime.run(structuredClone(scenarios.slow), recorder.emit, fakeTools(), controller.signal);
          let settled = false;
          const finished = running.then(() => {
            settled = true;
          });
          await Promise.race([recorder.waitFor(scenarios.abortAfterEvents ?? 1), finished]);
          assert.ok(!settled, 'the slow turn finished before it could be aborted');
          controller.abort(new Error('cancelled'));
          const atAbort = recorder.events.length;
          await finished;
          assert.deepEqual(recorder.events.slice(atAbort), [], 'events were emitted after the abort');
          // A later turn of the same runtime, run to its end: a turn that went on emitting
          // after its abort would have done so meanwhile.
          const later = recordingEmit();
          await runtime.run(structuredClone(scenarios.plain), later.emit, fakeTools(), new AbortController().signal);
          assert.equal(later.events.at(-1)?.type, 'complete', 'the later turn completes');
          assert.deepEqual(recorder.events.slice(atAbort), [], 'events were emitted after the abort');
          assertValid(recorder.events);
        },
      },
    ],
  };
}
