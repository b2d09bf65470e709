/** One-line descriptions of chat events, used as the text of MCP progress notifications. */
import type { ChatEvent } from '../core/chat/index.js';

function clip(text: string, length = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

/**
 * Describes an event in one line, e.g. `milestone: Draft the budget`.
 *
 * @example
 * describeEvent({ type: 'tool_call', content: { tool: 'search_skills', args: {} }, timestamp }) // 'tool_call: search_skills'
 */
export function describeEvent(event: ChatEvent): string {
  switch (event.type) {
    case 'thought':
    case 'text':
      return `${event.type}: ${clip(event.content)}`;
    case 'tool_call':
    case 'tool_result':
      return `${event.type}: ${event.content.tool}`;
    case 'decision':
    case 'milestone':
      return `${event.type}: ${clip(event.content.title)}`;
    case 'skill_learned':
      return `skill_learned: ${event.content.slug}`;
    case 'complete':
      return `complete: ${clip(event.content.summary)}`;
    case 'error':
      return `error: ${clip(event.content.message)}`;
  }
}
