/**
 * The chat event types, apart from their schemas (`chat.ts`) so that code which only
 * names them (the web UI's stream reader) does not load the schema library.
 */
export const EVENT_TYPES = ['thought', 'tool_call', 'tool_result', 'text', 'decision', 'milestone', 'skill_learned', 'complete', 'error'] as const;

/** A chat event type. */
export type EventType = (typeof EVENT_TYPES)[number];
