/** Chat events, runs and history messages (service description "Events", API.md §6). */

/** Payloads of each event type. */
export interface EventPayloads {
  thought: string;
  text: string;
  tool_call: { tool: string; args: unknown };
  tool_result: { tool: string; result: unknown };
  decision: { title: string; body: string };
  milestone: { title: string };
  /**
   * From a runtime: what it learned (slug, name, optional body, summary, tags, category).
   * In the stream and history: the outcome, `stored: true` with the slug the draft was
   * stored under, or `stored: false` with the `reason` nothing was stored.
   */
  skill_learned: { slug: string; name: string; body?: string; summary?: string; tags?: string[]; category?: string; stored?: boolean; reason?: string };
  complete: { summary: string; artifacts: string[] };
  error: { message: string };
}

/** A chat event type. */
export type EventType = keyof EventPayloads;

/** Every event type, in the order of the contract. */
export const EVENT_TYPES: readonly EventType[] = [
  'thought',
  'tool_call',
  'tool_result',
  'text',
  'decision',
  'milestone',
  'skill_learned',
  'complete',
  'error',
];

/** An event as a runtime emits it (the engine stamps the timestamp). */
export type EventInput = { [K in EventType]: { type: K; content: EventPayloads[K] } }[EventType];

/** A chat event: `{type, content, timestamp}`. */
export type ChatEvent = EventInput & { timestamp: string };

/** An event with its sequence number in the run (the SSE `id:`), starting at 1. */
export interface NumberedEvent {
  seq: number;
  event: ChatEvent;
}

/** True for the two terminal event types. */
export function isTerminal(event: { type: string }): boolean {
  return event.type === 'complete' || event.type === 'error';
}

/** Status of a run / agent history message. */
export type RunStatus = 'running' | 'complete' | 'error';

/** An attachment as recorded in history. */
export interface AttachmentInfo {
  name: string;
  content_type: string;
  size: number;
}

/** A history message (API.md §6). */
export interface HistoryMessage {
  id: string;
  run_id: string;
  sender: 'user' | 'agent';
  text: string;
  attachments: AttachmentInfo[];
  events: ChatEvent[];
  summary: string | null;
  artifacts: string[];
  status: RunStatus;
  created_at: string;
  completed_at: string | null;
  /** Where a user message came from when not the API itself (e.g. `email:alice@example.com`). */
  origin?: string;
}
