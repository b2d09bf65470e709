/**
 * A runtime whose turns wait for the test: a message containing "gated" emits a
 * thought, then waits until `release()` (or until the turn is cancelled, when it ends
 * at once); any other message completes at once with a report artifact. `started`
 * counts turns, `aborted` those whose runtime saw the cancellation. A message containing
 * "learn" also claims to have learned `file-expenses`.
 */
import type { AgentRuntime } from '../../src/core/runtimes/types.js';

/** A gated runtime and its controls. */
export interface GatedRuntime {
  runtime: AgentRuntime;
  /** Lets every waiting turn go on. */
  release(): void;
  /** Resolves when `n` gated turns are waiting. */
  waiting(n?: number): Promise<void>;
  /** Turns whose runtime was aborted (cancelled). */
  aborted: string[];
}

/** Builds a gated runtime. */
export function createGatedRuntime(): GatedRuntime {
  let open: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (open = resolve));
  const waiters: { n: number; resolve: () => void }[] = [];
  let waitingNow = 0;
  const aborted: string[] = [];
  const runtime: AgentRuntime = {
    name: 'gated',
    async run(turn, emit, tools, signal) {
      await emit({ type: 'thought', content: `reading: ${turn.message}` });
      if (turn.message.includes('gated')) {
        waitingNow++;
        for (const waiter of waiters.filter((candidate) => candidate.n <= waitingNow)) waiter.resolve();
        const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        await Promise.race([gate, stopped]);
        waitingNow--;
        if (signal.aborted) {
          aborted.push(turn.run_id);
          return;
        }
      }
      if (turn.message.includes('learn')) {
        await emit({ type: 'skill_learned', content: { slug: 'file-expenses', name: 'File expenses', body: '## Step 1: Collect the receipts\n' } });
      }
      const name = await tools.writeArtifact('report.md', `# Report\n\nRequest: ${turn.message}\n`, 'text/markdown');
      await emit({ type: 'milestone', content: { title: 'Report written' } });
      await emit({ type: 'complete', content: { summary: `Done: ${turn.message.slice(0, 60)}`, artifacts: [name] } });
    },
  };
  return {
    runtime,
    aborted,
    release() {
      open();
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    waiting(n = 1) {
      if (waitingNow >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}
