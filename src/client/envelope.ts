/**
 * The light check of a streamed chat event that every client can afford: the envelope
 * `{type, content, timestamp}` of a known type, with content of the kind its type declares
 * (a string for `thought` and `text`, an object otherwise). It loads no schema library, so
 * the web UI's bundle stays small; the Node client (`OrgClient`) checks every event against
 * the full `ChatEvent` schema instead (`isChatEvent`). The server validates the events it
 * sends, so the envelope is what a client needs to route an event to its renderer.
 */
import type { ChatEvent } from '../core/chat/types.js';
import { EVENT_TYPES } from '../core/schemas/event-types.js';

const TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);
const TEXT_TYPES: ReadonlySet<string> = new Set(['thought', 'text']);

/** True when `value` has the envelope of a chat event (see the module comment). */
export function isEventEnvelope(value: unknown): value is ChatEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { type, content, timestamp } = value as { type?: unknown; content?: unknown; timestamp?: unknown };
  if (typeof type !== 'string' || !TYPES.has(type) || typeof timestamp !== 'string') return false;
  return TEXT_TYPES.has(type) ? typeof content === 'string' : typeof content === 'object' && content !== null && !Array.isArray(content);
}
