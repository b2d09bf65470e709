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

/**
 * Consecutive relayed events recognised from their bytes (see `stringEventAt` in
 * event-bytes.ts): each is exactly `{"type":…,"content":"<string>"}` of a type whose
 * content is any string, and is passed on as those bytes. Three numbers per event in
 * `spans`: where its JSON starts in `source`, where it ends (after the closing brace),
 * and what `stringEventAt` answered (its type and whether its content has escapes).
 * `source` is read while the call that receives the group runs, not kept.
 */
export interface RelayedBytes {
  source: Buffer;
  spans: number[];
}

/** What a relay hands over per received chunk: parsed events and groups of recognised ones. */
export type RelayedItem = RelayedEvent | RelayedBytes;

/** True for a group of events recognised from their bytes. */
export function isRelayedBytes(item: RelayedItem): item is RelayedBytes {
  return 'spans' in item;
}

/** True for the two terminal event types. */
export function isTerminal(event: { type: string }): boolean {
  return event.type === 'complete' || event.type === 'error';
}
