/**
 * A small deterministic runtime for the surface tests (MCP, inbound channels): it
 * thinks, flags a milestone, writes a report artifact naming the message and the staged
 * attachments, and completes — or, for a message containing "fail", ends with an error.
 */
import { readFile } from 'node:fs/promises';
import type { AgentRuntime } from '../../src/core/runtimes/types.js';

/** The runtime; `delayMs` pauses between events so a stream can be watched (at least 300 ms for a "slow" message). */
export function createWorkRuntime(delayMs = 10): AgentRuntime {
  return {
    name: 'work',
    async run(turn, emit, tools) {
      // A message containing "slow" takes a while, so a test can act mid-turn.
      const pause = () => new Promise((resolve) => setTimeout(resolve, turn.message.includes('slow') ? Math.max(delayMs, 300) : delayMs));
      await emit({ type: 'thought', content: `reading: ${turn.message}` });
      await pause();
      if (turn.message.includes('fail')) {
        await emit({ type: 'error', content: { message: 'the tool broke' } });
        return;
      }
      await emit({ type: 'milestone', content: { title: 'Gathered the inputs' } });
      await pause();
      const staged = await Promise.all(turn.attachments.map(async (file) => `${file.name}: ${(await readFile(file.path, 'utf8')).trim()}`));
      const name = await tools.writeArtifact('report.md', `# Report\n\nRequest: ${turn.message}\n\nInputs:\n${staged.map((line) => `- ${line}`).join('\n')}\n`, 'text/markdown');
      await emit({ type: 'text', content: 'Report written.' });
      await pause();
      await emit({ type: 'complete', content: { summary: `Done: ${turn.message.slice(0, 60)}`, artifacts: [name] } });
    },
  };
}
