/**
 * The cap on a node's open turns (issue finding 10): every surface (the API, sync, MCP
 * `do`, inbound mail and messages, delegations) ends in the chat function, which takes a
 * place here before it writes anything. A node whose running turn and waiting turns reach
 * the cap refuses more with 429 and `Retry-After`, instead of queueing (and storing the
 * attachments of) an unbounded number of messages behind one slow turn.
 *
 * Counted per process: on a shared PostgreSQL store each instance keeps its own count.
 */
import { OrgError } from '../errors.js';

/** Open turns (running or waiting) a node may have by default. */
export const DEFAULT_MAX_QUEUED_TURNS = 20;

/** Seconds a refused sender is asked to wait: about one short turn. */
const RETRY_AFTER_S = 10;

/** The places in each node's queue. */
export class TurnQueueLimit {
  private readonly open = new Map<string, number>();

  /** @param max open turns (running or waiting) allowed per node */
  constructor(readonly max: number = DEFAULT_MAX_QUEUED_TURNS) {
    if (!Number.isInteger(max) || max < 1) throw new OrgError('invalid_request', 'the queue limit must be a whole number of turns, at least 1');
  }

  /**
   * Takes a place in the queue of `nodeId` (`roleId` names it in the refusal); returns the
   * function that gives it back (once the turn has ended, or when it never started).
   * Throws 429 `rate_limited` with Retry-After when the node has `max` open turns.
   */
  take(nodeId: string, roleId: string): () => void {
    const count = this.open.get(nodeId) ?? 0;
    if (count >= this.max) {
      throw new OrgError('rate_limited', `node ${roleId} already has ${count} turns running or waiting (at most ${this.max}); send this message again once one has finished`, {
        retryAfter: RETRY_AFTER_S,
      });
    }
    this.open.set(nodeId, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.open.get(nodeId) ?? 1) - 1;
      if (left > 0) this.open.set(nodeId, left);
      else this.open.delete(nodeId);
    };
  }

  /** Open turns of a node. */
  count(nodeId: string): number {
    return this.open.get(nodeId) ?? 0;
  }
}
