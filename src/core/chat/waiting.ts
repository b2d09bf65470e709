/**
 * Who is ahead of a message to a busy node (issue 31.8). Turns of a node run one at a
 * time, in order; a message that arrives while the node works waits, and its stream says
 * so at once with a `thought` naming the run it waits for, instead of staying silent for
 * the whole of the turn ahead.
 */
import type { Run } from './run.js';

/** The open runs of each node of this process, in the order their messages arrived. */
export class NodeLines {
  private readonly lines = new Map<string, Run[]>();

  /** Adds `run` to its node's line; returns the runs ahead of it that have not ended. */
  join(nodeId: string, run: Run): Run[] {
    const line = (this.lines.get(nodeId) ?? []).filter((open) => !open.finished);
    const ahead = [...line];
    line.push(run);
    this.lines.set(nodeId, line);
    const leave = () => {
      const rest = (this.lines.get(nodeId) ?? []).filter((open) => open !== run && !open.finished);
      if (rest.length > 0) this.lines.set(nodeId, rest);
      else this.lines.delete(nodeId);
    };
    run.done.then(leave, leave);
    return ahead;
  }
}

/** The `thought` a queued turn starts with: the run it waits for (the node's current turn), and how many more. */
export function waitingThought(ahead: readonly Run[]): string {
  const more = ahead.length - 1;
  return `waiting for the node's current turn (run ${ahead[0]!.id})${more > 0 ? ` and ${more} more message${more === 1 ? '' : 's'} ahead` : ''}`;
}
