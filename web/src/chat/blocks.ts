/**
 * Turns a turn's chat events into display blocks: consecutive `text` events merge into
 * one streamed text, each `tool_result` pairs with the earliest open `tool_call` of the
 * same tool, and every other event becomes its own block. Pure, so it is unit-tested.
 */
import type { ChatEvent } from '../api/types';

/** One rendered unit of a turn. */
export type Block =
  | { kind: 'thought'; key: string; text: string }
  | { kind: 'text'; key: string; text: string }
  | { kind: 'tool'; key: string; tool: string; args: unknown; hasCall: boolean; result: unknown; done: boolean }
  | { kind: 'decision'; key: string; title: string; body: string }
  | { kind: 'milestone'; key: string; title: string }
  | { kind: 'skill_learned'; key: string; slug: string; name: string }
  | { kind: 'complete'; key: string; summary: string; artifacts: string[] }
  | { kind: 'error'; key: string; message: string }
  | { kind: 'unknown'; key: string; type: string; content: unknown };

/** Groups events into blocks (see the module comment). */
export function toBlocks(events: readonly ChatEvent[]): Block[] {
  const blocks: Block[] = [];
  const open: Extract<Block, { kind: 'tool' }>[] = [];
  events.forEach((event, index) => {
    const key = `e${index}`;
    const last = blocks[blocks.length - 1];
    switch (event.type) {
      case 'text':
        if (last?.kind === 'text') last.text += event.content;
        else blocks.push({ kind: 'text', key, text: event.content });
        return;
      case 'thought':
        blocks.push({ kind: 'thought', key, text: event.content });
        return;
      case 'tool_call': {
        const block: Extract<Block, { kind: 'tool' }> = { kind: 'tool', key, tool: event.content.tool, args: event.content.args, hasCall: true, result: undefined, done: false };
        blocks.push(block);
        open.push(block);
        return;
      }
      case 'tool_result': {
        const at = open.findIndex((candidate) => candidate.tool === event.content.tool);
        if (at >= 0) {
          const block = open[at]!;
          open.splice(at, 1);
          block.result = event.content.result;
          block.done = true;
        } else {
          blocks.push({ kind: 'tool', key, tool: event.content.tool, args: undefined, hasCall: false, result: event.content.result, done: true });
        }
        return;
      }
      case 'decision':
        blocks.push({ kind: 'decision', key, title: event.content.title, body: event.content.body ?? '' });
        return;
      case 'milestone':
        blocks.push({ kind: 'milestone', key, title: event.content.title });
        return;
      case 'skill_learned':
        blocks.push({ kind: 'skill_learned', key, slug: event.content.slug, name: event.content.name });
        return;
      case 'complete':
        blocks.push({ kind: 'complete', key, summary: event.content.summary, artifacts: event.content.artifacts ?? [] });
        return;
      case 'error':
        blocks.push({ kind: 'error', key, message: event.content.message });
        return;
      default: {
        const other = event as { type: string; content: unknown };
        blocks.push({ kind: 'unknown', key, type: String(other.type), content: other.content });
      }
    }
  });
  return blocks;
}
