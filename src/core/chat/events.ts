/**
 * Validation of chat events arriving from outside (container agents, LLM tool
 * mapping): every event must have a known type and a payload of the right shape.
 */
import type { EventInput } from './types.js';

const isString = (value: unknown): value is string => typeof value === 'string';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks an untrusted value; returns the event or a message saying what is wrong. */
export function parseEvent(value: unknown): { ok: true; event: EventInput } | { ok: false; message: string } {
  if (!isObject(value)) return { ok: false, message: 'an event must be a JSON object' };
  const { type, content } = value;
  const bad = (message: string) => ({ ok: false as const, message: `${String(type)} event: ${message}` });
  switch (type) {
    case 'thought':
    case 'text':
      return isString(content) ? { ok: true, event: { type, content } } : bad('content must be a string');
    case 'tool_call':
      if (!isObject(content) || !isString(content.tool)) return bad('content.tool must be a string');
      return { ok: true, event: { type, content: { tool: content.tool, args: content.args ?? null } } };
    case 'tool_result':
      if (!isObject(content) || !isString(content.tool)) return bad('content.tool must be a string');
      return { ok: true, event: { type, content: { tool: content.tool, result: content.result ?? null } } };
    case 'decision':
      if (!isObject(content) || !isString(content.title) || !isString(content.body ?? '')) return bad('content needs title and body strings');
      return { ok: true, event: { type, content: { title: content.title, body: (content.body as string | undefined) ?? '' } } };
    case 'milestone':
      if (!isObject(content) || !isString(content.title)) return bad('content.title must be a string');
      return { ok: true, event: { type, content: { title: content.title } } };
    case 'skill_learned': {
      if (!isObject(content) || !isString(content.slug) || !isString(content.name)) return bad('content needs slug and name strings');
      const learned: EventInput & { type: 'skill_learned' } = { type, content: { slug: content.slug, name: content.name } };
      if (isString(content.body)) learned.content.body = content.body;
      if (isString(content.summary)) learned.content.summary = content.summary;
      if (isString(content.category)) learned.content.category = content.category;
      if (Array.isArray(content.tags) && content.tags.every(isString)) learned.content.tags = content.tags;
      return { ok: true, event: learned };
    }
    case 'complete': {
      if (!isObject(content) || !isString(content.summary)) return bad('content.summary must be a string');
      const artifacts = content.artifacts ?? [];
      if (!Array.isArray(artifacts) || !artifacts.every(isString)) return bad('content.artifacts must be an array of strings');
      return { ok: true, event: { type, content: { summary: content.summary, artifacts } } };
    }
    case 'error':
      if (!isObject(content) || !isString(content.message)) return bad('content.message must be a string');
      return { ok: true, event: { type, content: { message: content.message } } };
    default:
      return { ok: false, message: `unknown event type ${JSON.stringify(type)}` };
  }
}
