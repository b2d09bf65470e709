/** The outcome of a turn, read from its events (the same rule for every backend). */
import { isTerminal, type ChatEvent } from '../core/chat/index.js';
import type { LearnedSkill, TurnOutcome } from './backend.js';

/** The message of the error event that ends a cancelled turn. */
export const CANCELLED = 'cancelled';

/**
 * Skills the turn stored as drafts: its `skill_learned` outcome events that say
 * `stored: true` (under the slug actually used). A runtime's own claim to have learned
 * something is held back by the engine and never counts.
 */
export function learnedSkills(events: readonly ChatEvent[]): LearnedSkill[] {
  const bySlug = new Map<string, LearnedSkill | undefined>();
  for (const event of events) {
    if (event.type !== 'skill_learned') continue;
    const content = event.content as { slug: string; name: string; stored?: unknown };
    bySlug.set(content.slug, content.stored === true ? { slug: content.slug, name: content.name } : undefined);
  }
  return [...bySlug.values()].filter((skill): skill is LearnedSkill => skill !== undefined);
}

/** The outcome of a finished turn; undefined while it runs. */
export function outcomeOf(runId: string, events: readonly ChatEvent[]): TurnOutcome | undefined {
  const last = events.at(-1);
  if (!last || !isTerminal(last)) return undefined;
  const learned = learnedSkills(events);
  if (last.type === 'complete') return { run_id: runId, status: 'complete', summary: last.content.summary, artifacts: [...last.content.artifacts], learned };
  const message = last.type === 'error' ? last.content.message : 'the turn failed';
  return { run_id: runId, status: message === CANCELLED ? 'cancelled' : 'error', summary: message, artifacts: [], learned };
}
