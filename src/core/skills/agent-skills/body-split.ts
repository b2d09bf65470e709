/**
 * Long skill bodies in the Agent Skills layout: SKILL.md should stay short, so a body
 * past {@link SPLIT_LINES} lines keeps its introduction and every step heading as it is
 * in SKILL.md, each heading followed by a pointer line, and the text of each step moves
 * to `references/steps/<n>-<id>.md`. {@link joinBody} reverses it exactly.
 */
import type { Root } from 'mdast';
import { remark } from 'remark';
import { matchStep } from '../steps.js';

/** Bodies longer than this many lines are split. */
export const SPLIT_LINES = 400;
/** Metadata key marking a split body (outside the `org.` members, so it never becomes one). */
export const LAYOUT_KEY = 'org:layout';
/** Folder of the step files. */
export const STEPS_DIR = 'references/steps';

const processor = remark();
const POINTER = /^See \[(references\/steps\/[a-z0-9][a-z0-9._-]*\.md)\]\(\1\)\.$/;

/** Offsets of the top-level step headings of `body` (start of the line, end of the heading). */
function stepHeadings(body: string): { start: number; end: number; id: string; n: number }[] {
  const tree = processor.parse(body) as Root;
  const found: { start: number; end: number; id: string; n: number }[] = [];
  for (const node of tree.children) {
    if (node.type !== 'heading' || node.depth !== 2) continue;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    const text = body.slice(start, end).replace(/^ {0,3}##[ \t]*/, '').replace(/[ \t]+#+[ \t]*$/, '');
    const step = matchStep(text);
    // Only single-line ATX headings can carry a pointer line after them.
    if (step && !body.slice(start, end).includes('\n')) found.push({ start, end, id: step.id, n: step.n });
  }
  return found;
}

function fileName(index: number, id: string): string {
  const safe = id.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'step';
  return `${STEPS_DIR}/${String(index + 1).padStart(2, '0')}-${safe}.md`;
}

/**
 * Splits a long body: `undefined` when it is short enough (or has no steps), else the
 * SKILL.md body and the step files.
 */
export function splitBody(body: string): { body: string; files: Map<string, string> } | undefined {
  if (body.split('\n').length <= SPLIT_LINES) return undefined;
  const headings = stepHeadings(body);
  if (headings.length === 0) return undefined;
  const files = new Map<string, string>();
  let out = body.slice(0, headings[0]!.start);
  headings.forEach((heading, index) => {
    const next = headings[index + 1]?.start ?? body.length;
    const name = fileName(index, heading.id);
    files.set(name, body.slice(heading.end, next));
    out += `${body.slice(heading.start, heading.end)}\n\nSee [${name}](${name}).\n\n`;
  });
  return { body: out, files };
}

/** Puts the step files back under their headings; throws when a pointed-to file is missing. */
export function joinBody(body: string, read: (path: string) => string | undefined): string {
  const headings = stepHeadings(body);
  let out = body.slice(0, headings[0]?.start ?? body.length);
  headings.forEach((heading, index) => {
    const next = headings[index + 1]?.start ?? body.length;
    const rest = body.slice(heading.end, next);
    const pointer = /^\n\n([^\n]*)\n*$/.exec(rest);
    const path = pointer ? POINTER.exec(pointer[1] ?? '')?.[1] : undefined;
    const text = path === undefined ? undefined : read(path);
    if (path !== undefined && text === undefined) throw new Error(`${path} is missing`);
    out += body.slice(heading.start, heading.end) + (text ?? rest);
  });
  return out;
}
