/**
 * A scripted in-memory runtime: emits a fixed list of events, optionally with a pause
 * between them. Meant for tests of the engine and the surfaces, where a real runtime
 * would only add noise; it honours the contract (prompt stop on abort) like the others.
 */
import type { EventInput } from '../../src/core/chat/types.js';
import { isTerminal } from '../../src/core/chat/types.js';
import type { AgentRuntime, Emit, Turn, TurnTools } from '../../src/core/runtimes/types.js';
import { sleep } from '../../src/core/runtimes/util.js';

/** Options of the scripted runtime. */
export interface ScriptedRuntimeOptions {
  /** Pause after each event in ms (default 0). */
  delayMs?: number;
  /** The runtime's name (default `scripted`). */
  name?: string;
}

/**
 * Creates a runtime that emits `events` in order (or the events computed from the
 * turn) and stops after the first terminal one or when aborted. A script without a
 * terminal event makes the runtime return without one, as a faulty runtime would.
 *
 * @example
 * const runtime = createScriptedRuntime([
 *   { type: 'text', content: 'hi' },
 *   { type: 'complete', content: { summary: 'said hi', artifacts: [] } },
 * ], { delayMs: 10 });
 */
export function createScriptedRuntime(events: readonly EventInput[] | ((turn: Turn) => readonly EventInput[]), options: ScriptedRuntimeOptions = {}): AgentRuntime {
  const delayMs = options.delayMs ?? 0;
  return {
    name: options.name ?? 'scripted',
    async run(turn: Turn, emit: Emit, _tools: TurnTools, signal: AbortSignal) {
      const script = typeof events === 'function' ? events(turn) : events;
      for (const event of script) {
        if (signal.aborted) return;
        await emit(event);
        if (isTerminal(event)) return;
        await sleep(delayMs, signal);
      }
    },
  };
}
