/**
 * One turn in progress: the events a runtime emits pass through `handle`, which keeps
 * what learning needs (the runtime's `skill_learned` and the turn's steps) and hands
 * everything else to the run's appender. The runtime's `skill_learned` is held back:
 * what the stream carries instead is the outcome (API.md §9), decided when the turn
 * ends: the draft stored under its slug, or `stored: false` and why.
 */
import type { RunAppender } from './appender.js';
import { FollowedSkills, type OfferedSkill } from './followed.js';
import { draftFromTurn, type LearnedContent } from './learn.js';
import type { ChatSkills } from './ports.js';
import type { EventInput, RelayedEvent } from './types.js';

/** What a turn knows about itself. */
export interface TurnFacts {
  structureId: string;
  message: string;
  /** The skill named with `/<slug>`, when there is one: the turn follows it. */
  invokedSkill?: string;
  /** The skills the search offered: the turn follows one only by reading it or running its steps (followed.ts). */
  offeredSkills: readonly OfferedSkill[];
}

/** The event handling of one running turn. */
export class TurnEvents {
  private learned: LearnedContent | undefined;
  /** Tool calls and milestones, for a draft distilled from the turn. */
  private readonly steps: EventInput[] = [];
  /** The skills the turn followed: a turn that followed one learns nothing. */
  private readonly followed: FollowedSkills;

  constructor(
    private readonly appender: RunAppender,
    private readonly skills: Pick<ChatSkills, 'learnDraft'>,
    private readonly facts: TurnFacts,
  ) {
    this.followed = new FollowedSkills(facts.invokedSkill, facts.offeredSkills);
  }

  /** True once the turn has its terminal event. */
  get ended(): boolean {
    return this.appender.sealed;
  }

  /** Takes one event of the runtime (or of the engine); resolves once it is durable. */
  handle(event: EventInput, raw?: string, parsed?: unknown): Promise<void> {
    switch (event.type) {
      case 'skill_learned':
        if (!this.appender.sealed) this.learned ??= event.content;
        return Promise.resolve();
      case 'tool_call':
      case 'milestone':
        this.noteStep(event);
        break;
      case 'complete':
      case 'error':
        if (this.learned !== undefined) {
          const learned = this.learned;
          return this.appender.appendTerminal(async () => [await this.outcome(learned, event.type === 'complete'), event]);
        }
        break;
    }
    return this.appender.append(event, raw, parsed);
  }

  /**
   * Takes the events of one received chunk, in order; resolves once they are durable.
   * Runs of ordinary events go to the appender as one batch; the events learning acts
   * on (`skill_learned`, a terminal event after one) are handled one by one between them.
   */
  handleBatch(items: readonly RelayedEvent[]): Promise<void> {
    const waits: Promise<void>[] = [];
    // Runs of ordinary events, as they come: the whole batch in the common case.
    let from = 0;
    for (let index = 0; index < items.length; index++) {
      const { event, raw, parsed } = items[index]!;
      if (this.needsOwnHandling(event.type)) {
        if (index > from) waits.push(this.appender.appendBatch(items.slice(from, index)));
        waits.push(this.handle(event, raw, parsed));
        from = index + 1;
        continue;
      }
      this.noteStep(event);
    }
    if (from < items.length) waits.push(this.appender.appendBatch(from === 0 ? items : items.slice(from)));
    return waits.length === 1 ? waits[0]! : Promise.all(waits).then(() => undefined);
  }

  /** Notes a tool call or milestone: what it says of the skills followed, and a step of a draft distilled from the turn. */
  private noteStep(event: EventInput): void {
    if (event.type !== 'tool_call' && event.type !== 'milestone') return;
    this.followed.note(event);
    if (this.learned === undefined && this.steps.length < 200) this.steps.push(event);
  }

  /** True for the events learning acts on: `skill_learned`, and a terminal event once something was learned. */
  private needsOwnHandling(type: EventInput['type']): boolean {
    return type === 'skill_learned' || ((type === 'complete' || type === 'error') && this.learned !== undefined);
  }

  /** Stores the learned draft when the rule allows it, and says what happened. */
  private async outcome(learned: LearnedContent, completed: boolean): Promise<EventInput> {
    const refused = (reason: string): EventInput => ({ type: 'skill_learned', content: { slug: learned.slug, name: learned.name, stored: false, reason } });
    if (!completed) return refused('the turn did not complete, so nothing was learned');
    const followed = this.followed.list();
    if (followed.length > 0) {
      const names = followed.map(({ slug, how }) => `${slug} (${how})`).join(', ');
      return refused(`the turn followed the skill ${names}; only turns that no skill covers are learned`);
    }
    const draft = draftFromTurn({ structureId: this.facts.structureId, message: this.facts.message, learned, steps: this.steps });
    try {
      const slug = await this.skills.learnDraft(draft);
      return { type: 'skill_learned', content: { slug, name: draft.name, stored: true } };
    } catch (error) {
      return refused(`the draft could not be stored: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
