/** Calls about chat: sending messages (streamed or waited for), following and cancelling runs, history. */
import { callOn, streamOptionsOf, transportOf, type ClientBase } from '../base.js';
import type { RequestOptions } from '../http.js';
import { cancelRun, followRun, openChatStream, type ChatStream, type ChatStreamOptions } from '../stream.js';
import type { ChatMessage, HistoryMessage, RunMatches, SyncResult } from '../types.js';

export const chatCalls = {
  /**
   * Sends a message and returns the live stream of the turn. `headers` go with the
   * message request only, e.g. the caller's W3C `traceparent` and `tracestate`.
   */
  chat(message: ChatMessage, options: ChatStreamOptions = {}, headers: Readonly<Record<string, string>> = {}): Promise<ChatStream> {
    return openChatStream(transportOf(this), message, streamOptionsOf(this, options), headers);
  },

  /** Follows a run (replaying after `after`), e.g. one still running from an earlier session. */
  followRun(runId: string, after = 0, options: ChatStreamOptions = {}): ChatStream {
    return followRun(transportOf(this), runId, after, streamOptionsOf(this, options));
  },

  /** Cancels a running turn (a finished one is left alone). */
  cancelRun(runId: string): Promise<void> {
    return cancelRun(transportOf(this), runId);
  },

  /** Sends a message and waits for the whole turn (no time limit of its own: the server answers 504 past its sync timeout). */
  chatSync(message: ChatMessage, request?: RequestOptions): Promise<SyncResult> {
    return callOn(this, '/api/org/chat/message/sync', { method: 'POST', body: message, timeout: 0 }, request);
  },

  /** A node's history, newest first. */
  history(structureId: string, roleId: string, options: { limit?: number; before?: string } = {}, request?: RequestOptions): Promise<HistoryMessage[]> {
    return callOn(this, '/api/org/chat/history', { query: { structure_id: structureId, role_id: roleId, limit: options.limit, before: options.before } }, request);
  },

  /** The runs the caller may follow whose id starts with `prefix` (at least 4 characters), in one structure or all of the caller's. */
  findRuns(prefix: string, structureId?: string, request?: RequestOptions): Promise<RunMatches> {
    return callOn(this, '/api/org/chat/runs', { query: { prefix, structure_id: structureId } }, request);
  },
} satisfies ThisType<ClientBase>;

/** The chat calls of `OrgClient`. */
export type ChatCalls = typeof chatCalls;
