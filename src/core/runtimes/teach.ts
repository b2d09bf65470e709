/**
 * Being taught by a person (the local runtime's learning, issue 16.2). When no skill
 * covers a request, the local runtime asks for the steps; the person answers with
 * `/teach` and the steps, and the lesson becomes a `skill_learned` event the service
 * stores as a draft for review. `/teach` names no skill, so such a turn uses none and is
 * eligible for learning (API.md §6).
 *
 * The question is found again in the node's history through the summary of the turn
 * that asked it, so nothing but the history carries the state.
 */
import type { StoredMessage } from '../chat/store.js';

/** The explicit command of a teaching message: `/teach` then the steps. */
export const TEACH_COMMAND = 'teach';

const ASKED = /^No skill covers (".*") yet: teach me with \/teach and the steps\.$/s;

/** The summary of a turn that asks to be taught how to do `request`. */
export function askSummary(request: string): string {
  return `No skill covers ${JSON.stringify(request)} yet: teach me with /teach and the steps.`;
}

/** The request the node's last reply asked to be taught, if it did. */
export function pendingLesson(history: readonly StoredMessage[]): string | undefined {
  const last = history.filter((message) => message.sender === 'agent').sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
  const match = ASKED.exec(last?.summary ?? '');
  if (!match?.[1]) return undefined;
  try {
    const request = JSON.parse(match[1]) as unknown;
    return typeof request === 'string' && request.trim() ? request : undefined;
  } catch {
    return undefined;
  }
}

const BULLET = /^\s*(?:[-*•]\s*|\d{1,3}\s*[.):-]\s*|step\s*\d{1,3}\s*[.):-]?\s*)/i;

/**
 * The steps of a lesson: one a line (bullets and numbers removed), or — typed on one
 * line, as a chat input allows — separated by `;` or by inline numbers (`1. … 2. …`).
 */
export function stepsOf(text: string): string[] {
  const clean = (parts: string[]) => parts.map((part) => part.replace(BULLET, '').trim()).filter(Boolean);
  const lines = clean(text.split(/\r?\n/));
  if (lines.length > 1) return lines;
  const one = lines[0] ?? '';
  if (one.includes(';')) return clean(one.split(';'));
  const numbered = one.split(/\s+(?=\d{1,3}[.)]\s)/);
  return numbered.length > 1 ? clean(numbered) : lines;
}

/** A short id for a step title, unique among `taken`. */
function stepId(title: string, taken: Set<string>): string {
  const base =
    title
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, ' ')
      .trim()
      .split(' ')
      .slice(0, 4)
      .join('-') || 'step';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** A skill slug for a request: its words, lowercase, joined by hyphens. */
export function lessonSlug(request: string): string {
  const slug = request
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 58)
    .replace(/-+$/, '');
  return slug || 'taught-skill';
}

/** A lesson: what it is for and its steps. */
export interface Lesson {
  request: string;
  steps: string[];
}

/**
 * Reads a `/teach` message: the steps, and the request they are for — the pending
 * question, or else the first line of the message (`/teach plan an offsite` then the
 * steps on the lines below), or on one line what comes before the first `:`
 * (`/teach plan an offsite: book a venue; send the agenda`). Steps with nothing saying
 * what they are for are `missing: 'request'`, never taken for the request.
 */
export function lessonOf(message: string, history: readonly StoredMessage[]): Lesson | { missing: 'request' | 'steps'; pending?: string } {
  const text = message.trimStart().replace(/^\/teach\b[ \t]*/, '');
  const pending = pendingLesson(history);
  if (pending) {
    const steps = stepsOf(text);
    // A lone `/teach` keeps the question open: the steps may follow in the next message.
    return steps.length ? { request: pending, steps } : { missing: 'steps', pending };
  }
  const [first = '', ...rest] = text.split(/\r?\n/);
  if (!first.trim()) return { missing: 'request' };
  if (rest.join('').trim() === '') {
    // A line that starts as a step, or holds several, says how, not what for.
    if (BULLET.test(first)) return { missing: 'request' };
    const colon = first.indexOf(':');
    if (colon > 0) {
      const steps = stepsOf(first.slice(colon + 1));
      return steps.length ? { request: first.slice(0, colon).trim(), steps } : { missing: 'steps' };
    }
    return stepsOf(first).length > 1 ? { missing: 'request' } : { missing: 'steps' };
  }
  const steps = stepsOf(rest.join('\n'));
  return steps.length ? { request: first.trim(), steps } : { missing: 'steps' };
}

/** The draft skill a lesson becomes: name, slug, summary and a body of `## [id] Step n: title` sections. */
export function lessonSkill(lesson: Lesson): { slug: string; name: string; summary: string; body: string; tags: string[] } {
  const request = lesson.request.replace(/\s+/g, ' ').trim();
  const name = (request.charAt(0).toUpperCase() + request.slice(1)).slice(0, 80);
  const taken = new Set<string>();
  const sections = lesson.steps.map((step, i) => {
    const title = step.length > 80 ? `${step.slice(0, 79)}…` : step;
    return `## [${stepId(step, taken)}] Step ${i + 1}: ${title.replace(/\s+/g, ' ')}\n\n${step}\n`;
  });
  return {
    slug: lessonSlug(request),
    name,
    summary: `${name}, as a person taught it in chat.`,
    tags: ['taught'],
    body: `Taught in chat by a person, for requests like: "${request}".\n\n${sections.join('\n')}`,
  };
}
