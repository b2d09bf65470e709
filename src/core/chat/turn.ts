/**
 * One turn in progress: the events a runtime emits pass through `handle`, which keeps
 * what learning needs (the runtime's `skill_learned` and the turn's steps) and hands
 * everything else to the run's appender. The runtime's `skill_learned` is held back:
 * what the stream carries instead is the outcome (API.md §9), decided when the turn
 * ends: the draft stored under its slug, or `stored: false` and why.
 */
import type { RunAppender } from './appender.js';
import { draftFromTurn, type LearnedContent } from './learn.js';
import type { ChatSkills } from './ports.js';
import type { EventInput, RelayedEvent } from './types.js';

/** What a turn knows about itself. */
export interface TurnFacts {
  structureId: string;
  message: string;
  /** Slugs of the skills the turn was given (matched or named with `/<slug>`). */
  usedSkills: string[];
}

/** The event handling of one running turn. */
export class TurnEvents {
  private learned: LearnedContent | undefined;
  /** Tool calls and milestones, for a draft distilled from the turn. */
  private readonly steps: EventInput[] = [];

  constructor(
    private readonly appender: RunAppender,
    private readonly skills: Pick<ChatSkills, 'learnDraft'>,
    private readonly facts: TurnFacts,
  ) {}

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
        if (this.learned === undefined && this.steps.length < 200) this.steps.push(event);
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
    if (!items.some((item) => this.needsOwnHandling(item.event.type))) {
      if (this.learned === undefined) for (const item of items) this.noteStep(item.event);
      return this.appender.appendBatch(items);
    }
    const waits: Promise<void>[] = [];
    let plain: RelayedEvent[] = [];
    for (const item of items) {
      if (this.needsOwnHandling(item.event.type)) {
        if (plain.length > 0) waits.push(this.appender.appendBatch(plain));
        plain = [];
        waits.push(this.handle(item.event, item.raw, item.parsed));
        continue;
      }
      if (this.learned === undefined) this.noteStep(item.event);
      plain.push(item);
    }
    if (plain.length > 0) waits.push(this.appender.appendBatch(plain));
    return waits.length === 1 ? waits[0]! : Promise.all(waits).then(() => undefined);
  }

  /** Keeps a tool call or milestone as a step of a draft distilled from the turn. */
  private noteStep(event: EventInput): void {
    if ((event.type === 'tool_call' || event.type === 'milestone') && this.steps.length < 200) this.steps.push(event);
  }

  /** True for the events learning acts on: `skill_learned`, and a terminal event once something was learned. */
  private needsOwnHandling(type: EventInput['type']): boolean {
    return type === 'skill_learned' || ((type === 'complete' || type === 'error') && this.learned !== undefined);
  }

  /** Stores the learned draft when the rule allows it, and says what happened. */
  private async outcome(learned: LearnedContent, completed: boolean): Promise<EventInput> {
    const refused = (reason: string): EventInput => ({ type: 'skill_learned', content: { slug: learned.slug, name: learned.name, stored: false, reason } });
    if (!completed) return refused('the turn did not complete, so nothing was learned');
    if (this.facts.usedSkills.length > 0) {
      const names = this.facts.usedSkills.join(', ');
      return refused(`the turn used the skill ${names}; only turns that no skill covers are learned`);
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
