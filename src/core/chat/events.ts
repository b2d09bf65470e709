/**
 * Validation of chat events arriving from outside (container agents, the runtime
 * contract): the event must be an object with a known `type` and a `content` that
 * matches that type's schema (core/schemas/chat.ts). Each type's schema is compiled
 * once, on first use.
 */
import { compileCheck, describeErrors, type Check } from '../schemas/check.js';
import { EVENT_TYPES, EventContentSchemas, type EventInput, type EventType } from '../schemas/chat.js';

const checks = new Map<EventType, Check<unknown>>();

function checkOf(type: EventType): Check<unknown> {
  let check = checks.get(type);
  if (!check) {
    check = compileCheck(EventContentSchemas[type], 'content');
    checks.set(type, check);
  }
  return check;
}

function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Types whose content is any string (no length, pattern or format): a string is valid
 * as it is, with nothing to default or drop, so the compiled check is skipped (the
 * relay's common case: a stream of `text` events).
 */
const ANY_STRING = new Set<EventType>(
  EVENT_TYPES.filter((type) => {
    const schema = EventContentSchemas[type] as { type?: unknown; minLength?: unknown; maxLength?: unknown; pattern?: unknown; format?: unknown };
    return schema.type === 'string' && schema.minLength === undefined && schema.maxLength === undefined && schema.pattern === undefined && schema.format === undefined;
  }),
);

/** True when `value` has no own enumerable members besides `type` and `content` (which it has). */
function hasTwoMembers(value: object): boolean {
  let count = 0;
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key) && ++count > 2) return false;
  return count === 2 && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * Checks an untrusted value; returns the event (defaults filled in, unknown members
 * dropped, any timestamp left to the engine) or a message saying what is wrong.
 *
 * @example
 * parseEvent({ type: 'tool_call', content: { tool: 5 } })
 * // → { ok: false, message: 'tool_call event: content.tool must be a string' }
 */
export function parseEvent(value: unknown): { ok: true; event: EventInput } | { ok: false; message: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'an event must be a JSON object' };
  const { type, content } = value as { type?: unknown; content?: unknown };
  if (!isEventType(type)) return { ok: false, message: `unknown event type ${JSON.stringify(type) ?? 'undefined'}` };
  if (typeof content === 'string' && ANY_STRING.has(type)) {
    // The relay's common case: `{type, content}` and nothing else is the event itself (no
    // copy), which also tells `encodeEvent` that the text it came from can be reused as is.
    return { ok: true, event: hasTwoMembers(value) ? (value as EventInput) : ({ type, content } as EventInput) };
  }
  // The check completes and cleans the content in place: give it a copy, so the caller's
  // parsed value still shows what was sent. Content schemas are flat, so one level suffices.
  const copy = content !== null && typeof content === 'object' && !Array.isArray(content) ? { ...content } : content;
  const checked = checkOf(type)(copy);
  if (!checked.ok) return { ok: false, message: `${type} event: ${describeErrors(checked.errors)}` };
  return { ok: true, event: { type, content: checked.value } as EventInput };
}
