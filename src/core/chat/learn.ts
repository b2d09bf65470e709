/**
 * Auto-learning (API.md §6): when a turn completes without using a skill and the
 * runtime emitted `skill_learned`, the turn becomes a draft skill — its body taken from
 * the event, or distilled from the turn: one step per tool call or milestone.
 */
import { TEACH_COMMAND } from '../runtimes/teach.js';
import type { LearnedDraft } from './ports.js';
import type { EventInput } from './types.js';

function stepId(title: string, taken: Set<string>): string {
  const base =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '') || 'step';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** Distils a markdown body with `## [id] Step n: title` sections from a turn's events. */
export function distillBody(message: string, events: EventInput[]): string {
  const taken = new Set<string>();
  const sections: string[] = [];
  for (const event of events) {
    if (event.type === 'milestone') {
      sections.push(`## [${stepId(event.content.title, taken)}] Step ${sections.length + 1}: ${event.content.title}\n`);
    } else if (event.type === 'tool_call') {
      const title = `Call ${event.content.tool}`;
      const args = JSON.stringify(event.content.args ?? null, null, 2);
      sections.push(`## [${stepId(title, taken)}] Step ${sections.length + 1}: ${title}\n\nArguments used in the original turn:\n\n\`\`\`json\n${args}\n\`\`\`\n`);
    }
  }
  if (sections.length === 0) sections.push(`## [${stepId('Do the task', taken)}] Step 1: Do the task\n\n${message}\n`);
  return `Learned from a turn that asked:\n\n> ${message.replace(/\n/g, '\n> ')}\n\n${sections.join('\n')}`;
}

const PLAIN_STEP = /^##[ \t]+Step[ \t]+(\d{1,6})[ \t]*[:.)-][ \t]*(.*?)[ \t]*$/i;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Gives `## Step n: title` headings of a body taken from a `skill_learned` event a step
 * id (`## [id] Step n: title`), since only headings with an id are steps (API.md §4) and
 * agents are told to write plain ones. Headings that have an id, and fenced code, are kept.
 */
export function withStepIds(body: string): string {
  const taken = new Set<string>();
  let fence: string | undefined;
  return body
    .split('\n')
    .map((line) => {
      const marker = FENCE.exec(line)?.[1];
      if (marker && (fence === undefined || marker.startsWith(fence))) {
        fence = fence === undefined ? marker : undefined;
        return line;
      }
      const match = fence === undefined ? PLAIN_STEP.exec(line) : null;
      if (!match) return line;
      const title = match[2] || `Step ${match[1]}`;
      return `## [${stepId(title, taken)}] Step ${match[1]}: ${title}`;
    })
    .join('\n');
}

/** A message as a trigger: one line, at most 200 characters, cut at a word. */
function asTrigger(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  if (line.length <= 200) return line;
  const cut = line.slice(0, 200);
  return cut.slice(0, Math.max(cut.lastIndexOf(' '), 100)).trim();
}

/** What a runtime said it learned. */
export type LearnedContent = Extract<EventInput, { type: 'skill_learned' }>['content'];

/** At most this many triggers are taken from a `skill_learned` event. */
const MAX_LEARNED_TRIGGERS = 10;

/** True for a message in which a person teaches the steps (`/teach …`): its text is the lesson, not a request. */
export function isTeaching(message: string): boolean {
  return new RegExp(`^\\s*/${TEACH_COMMAND}(?![a-z0-9-])`).test(message);
}

/**
 * The draft's triggers: those the runtime named (the request a person taught), else the
 * message of the turn — never a `/teach` lesson, which is how, not what for.
 */
function learnedTriggers(message: string, named: readonly string[] | undefined): string[] {
  const given = (named ?? []).map(asTrigger).filter((trigger) => trigger.length > 0 && !isTeaching(trigger));
  if (given.length > 0) return [...new Set(given)].slice(0, MAX_LEARNED_TRIGGERS);
  return isTeaching(message) ? [] : [asTrigger(message)].filter((trigger) => trigger.length > 0);
}

/**
 * The draft to store for a completed turn that did not use a skill: its body taken
 * from the runtime's `skill_learned` event, or distilled from the turn's steps (its
 * tool calls and milestones); its triggers the request it was learned for; `learned_by:
 * user` when the message taught the steps (`/teach`), else `agent`.
 */
export function draftFromTurn(input: { structureId: string; message: string; learned: LearnedContent; steps: EventInput[] }): LearnedDraft {
  const content = input.learned;
  return {
    structureId: input.structureId,
    slug: content.slug,
    name: content.name,
    body: content.body && content.body.trim().length > 0 ? withStepIds(content.body) : distillBody(input.message, input.steps),
    summary: content.summary ?? `Learned from: ${input.message.slice(0, 160)}`,
    tags: content.tags ?? [],
    category: content.category ?? 'general',
    triggers: learnedTriggers(input.message, content.triggers),
    learnedBy: isTeaching(input.message) ? 'user' : 'agent',
  };
}
