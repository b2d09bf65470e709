/**
 * The outcome of learning as the chat stream reports it (API.md §9): a `skill_learned`
 * event with `stored: true` names the draft that was stored; one with `stored: false`
 * says why nothing was. A `skill_learned` without `stored` is only what the runtime
 * proposed, which may not have been kept: every CLI surface prints the outcome alone.
 */
import type { EventPayloads } from '../client/types.js';
import { commandLine } from './quote.js';

/** What came of a turn's learning. */
export type LearnedOutcome = { stored: true; slug: string; name: string } | { stored: false; slug: string; name: string; reason: string };

/** The outcome carried by a `skill_learned` event; undefined for a runtime's proposal. */
export function learnedOutcome(content: EventPayloads['skill_learned']): LearnedOutcome | undefined {
  const reported = content as EventPayloads['skill_learned'] & { stored?: unknown; reason?: unknown };
  if (reported.stored === true) return { stored: true, slug: reported.slug, name: reported.name };
  if (reported.stored === false) {
    const reason = typeof reported.reason === 'string' && reported.reason.trim() ? reported.reason.trim() : 'the server did not say why';
    return { stored: false, slug: reported.slug, name: reported.name, reason };
  }
  return undefined;
}

/** Lines for people: the stored draft and how to review it, or why nothing was stored. */
export function describeLearned(outcome: LearnedOutcome): string[] {
  if (outcome.stored) {
    return [`✎ learned a draft skill: ${outcome.slug} (${outcome.name})`, `  review it: ${commandLine('org', 'drafts', 'approve', outcome.slug)}   or the queue: org drafts`];
  }
  return [`✎ not learned${outcome.name ? ` "${outcome.name}"` : ''}: ${outcome.reason}`];
}
