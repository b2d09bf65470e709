/**
 * Turns a turn's chat events into display blocks: consecutive `text` events merge into
 * one streamed text, each `tool_result` pairs with the earliest open `tool_call` of the
 * same tool (a skill search keeps its matches), a cancel's error becomes a neutral
 * "stopped", a `skill_learned` outcome says whether a draft was stored, and every other
 * event becomes its own block. Pure, so it is unit-tested.
 */
import type { ChatEvent } from '../api/types';
import { closeDelegation, delegateCallOf, delegateResultOf, type DelegateBlock } from './delegation';

/** One rendered unit of a turn. */
export type Block =
  | { kind: 'thought'; key: string; text: string }
  | { kind: 'text'; key: string; text: string }
  | { kind: 'tool'; key: string; tool: string; args: unknown; hasCall: boolean; result: unknown; done: boolean; matches?: SkillMatch[] }
  | { kind: 'decision'; key: string; title: string; body: string }
  | { kind: 'milestone'; key: string; title: string }
  /** A draft the service stored (the stream says so). */
  | { kind: 'learned'; key: string; slug: string; name: string }
  /** A skill the agent offered that was not stored, and why. */
  | { kind: 'not_learned'; key: string; name: string; reason: string }
  /** A learned skill from a stream that does not say what was stored (older runs). */
  | { kind: 'proposed'; key: string; name: string }
  | { kind: 'complete'; key: string; summary: string; artifacts: string[] }
  | { kind: 'error'; key: string; message: string }
  /** The run was stopped on purpose (by `by`, when the stream names who). */
  | { kind: 'stopped'; key: string; by?: string }
  | { kind: 'unknown'; key: string; type: string; content: unknown }
  /** A task handed to another node (a `delegate` tool call), then its outcome. */
  | DelegateBlock;

/** A skill a search matched, as the chat shows it. */
export interface SkillMatch {
  slug: string;
  name?: string;
  score: number;
}

/** What a `skill_learned` event carries, with the outcome the service adds. */
interface LearnedContent {
  slug: string;
  name: string;
  stored?: boolean;
  reason?: string;
}

/** The matches of a `search_skills` result, when it has that shape. */
export function matchesOf(result: unknown): SkillMatch[] | undefined {
  const matches = (result as { matches?: unknown } | null)?.matches;
  if (!Array.isArray(matches)) return undefined;
  const valid = matches.filter((match): match is SkillMatch => typeof match === 'object' && match !== null && typeof (match as SkillMatch).slug === 'string' && typeof (match as SkillMatch).score === 'number');
  return valid.length === matches.length ? valid : undefined;
}

/** Groups events into blocks (see the module comment). */
export function toBlocks(events: readonly ChatEvent[]): Block[] {
  const blocks: Block[] = [];
  const open: Extract<Block, { kind: 'tool' }>[] = [];
  const delegations: DelegateBlock[] = [];
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
        const call = delegateCallOf(event);
        if (call) {
          const delegation: DelegateBlock = { kind: 'delegate', key, ...call, done: false };
          blocks.push(delegation);
          delegations.push(delegation);
          return;
        }
        const block: Extract<Block, { kind: 'tool' }> = { kind: 'tool', key, tool: event.content.tool, args: event.content.args, hasCall: true, result: undefined, done: false };
        blocks.push(block);
        open.push(block);
        return;
      }
      case 'tool_result': {
        const delegated = delegateResultOf(event);
        if (delegated) {
          if (!closeDelegation(delegations, delegated)) {
            const { roleId, runId, ...outcome } = delegated;
            blocks.push({ kind: 'delegate', key, roleId, message: '', runId, done: true, outcome });
          }
          return;
        }
        const at = open.findIndex((candidate) => candidate.tool === event.content.tool);
        const matches = event.content.tool === 'search_skills' ? matchesOf(event.content.result) : undefined;
        if (at >= 0) {
          const block = open[at]!;
          open.splice(at, 1);
          block.result = event.content.result;
          block.done = true;
          if (matches) block.matches = matches;
        } else {
          blocks.push({ kind: 'tool', key, tool: event.content.tool, args: undefined, hasCall: false, result: event.content.result, done: true, ...(matches ? { matches } : {}) });
        }
        return;
      }
      case 'decision':
        blocks.push({ kind: 'decision', key, title: event.content.title, body: event.content.body ?? '' });
        return;
      case 'milestone':
        blocks.push({ kind: 'milestone', key, title: event.content.title });
        return;
      case 'skill_learned': {
        const learned = event.content as LearnedContent;
        if (learned.stored === true) blocks.push({ kind: 'learned', key, slug: learned.slug, name: learned.name });
        else if (learned.stored === false) blocks.push({ kind: 'not_learned', key, name: learned.name, reason: learned.reason ?? 'the service did not say why' });
        else blocks.push({ kind: 'proposed', key, name: learned.name });
        return;
      }
      case 'complete':
        blocks.push({ kind: 'complete', key, summary: event.content.summary, artifacts: event.content.artifacts ?? [] });
        return;
      case 'error': {
        const { message, cancelled_by: by } = event.content;
        // Stopping a turn stops what it delegated: an open delegation reads stopped too.
        if (message === 'cancelled') for (const open of delegations) open.stopped = true;
        if (message === 'cancelled') blocks.push({ kind: 'stopped', key, ...(by ? { by } : {}) });
        else blocks.push({ kind: 'error', key, message });
        return;
      }
      default: {
        const other = event as { type: string; content: unknown };
        blocks.push({ kind: 'unknown', key, type: String(other.type), content: other.content });
      }
    }
  });
  return blocks;
}
