/**
 * Chat events, runs and history messages (service description "Events", API.md §6).
 * The records are declared once as schemas in `core/schemas/chat.ts`; this module
 * re-exports their types and adds what only the engine needs.
 */
import type { ChatEvent, EventInput } from '../schemas/chat.js';

export type { AttachmentInfo, ChatEvent, EventInput, EventPayloads, HistoryMessage, MessageAuthor, RunStatus } from '../schemas/chat.js';
// The event types come from their own module, so importing this one loads no schema library.
export { EVENT_TYPES, type EventType } from '../schemas/event-types.js';

/** An event with its sequence number in the run (the SSE `id:`), starting at 1. */
export interface NumberedEvent {
  seq: number;
  event: ChatEvent;
}

/**
 * An event as a relay received it: validated, with the JSON text it was parsed from
 * (`raw`) and that parse (`parsed`), which the engine reuses instead of serialising
 * again when they hold exactly the validated members.
 */
export interface RelayedEvent {
  event: EventInput;
  raw?: string;
  parsed?: unknown;
}

/** True for the two terminal event types. */
export function isTerminal(event: { type: string }): boolean {
  return event.type === 'complete' || event.type === 'error';
}
