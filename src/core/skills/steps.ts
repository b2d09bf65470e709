/**
 * Steps of a skill body: level-2 headings written `## [<step_id>] Step <n>: <title>`.
 * The body is parsed with remark, so a `##` line inside a fenced or indented code
 * block, a block quote's text or an HTML block is never taken for a step.
 *
 * remark costs about 0.8 ms per KiB, which is most of a 10,000-file cold start, so
 * bodies made only of constructs whose block structure is unambiguous (no fences, HTML
 * blocks, block quotes, setext underlines, link definitions or indented `#` lines) take
 * a line scan that yields exactly what remark would; a property test holds the two
 * paths equal. Everything else goes through remark.
 */
import type { Heading, Root } from 'mdast';
import { remark } from 'remark';
import type { SkillStep } from './types.js';

const STEP_HEADING = /^\[\s*([^\]\s][^\]]*?)\s*\]\s*Step\s+(\d{1,6})\s*[:.)-]\s*(.*?)\s*$/i;
const processor = remark();

/**
 * Parses the steps of a markdown body, in document order.
 *
 * @example
 * parseSteps('## [collect] Step 1: Collect the facts\n...')
 * // → [{ id: 'collect', n: 1, title: 'Collect the facts' }]
 */
export function parseSteps(body: string): SkillStep[] {
  if (!/step/i.test(body)) return [];
  return parseStepsByLines(body) ?? parseStepsWithRemark(body);
}

/** The authoritative path: remark's syntax tree, top-level depth-2 headings only. */
export function parseStepsWithRemark(body: string): SkillStep[] {
  const tree = processor.parse(body) as Root;
  const steps: SkillStep[] = [];
  // Top-level headings only: a heading nested in a list or block quote is not a section.
  for (const node of tree.children) {
    if (node.type !== 'heading' || node.depth !== 2) continue;
    const step = matchStep(headingSource(body, node));
    if (step) steps.push(step);
  }
  return steps;
}

/** Lines that make the block structure depend on context: leave those bodies to remark. */
const AMBIGUOUS_LINE = /^(?: {0,3}(?:`{3,}|~{3,}|<|>|\[[^\]]*\]:|(?:=+|-+)[ \t]*$)| {1,3}#|\t| {4,}#)/;
const ATX_H2 = /^##(?:[ \t]|$)/;

/**
 * The fast path: undefined when any line could change how a `##` line is read
 * (then the caller uses remark); otherwise the steps of every column-0 `## ` line.
 */
export function parseStepsByLines(body: string): SkillStep[] | undefined {
  const lines = body.split(/\r\n|\r|\n/);
  const steps: SkillStep[] = [];
  for (const line of lines) {
    if (AMBIGUOUS_LINE.test(line)) return undefined;
    if (!ATX_H2.test(line)) continue;
    const step = matchStep(atxText(line));
    if (step) steps.push(step);
  }
  return steps;
}

/** Matches the text of one heading against the step pattern. */
export function matchStep(text: string): SkillStep | undefined {
  const match = STEP_HEADING.exec(text);
  if (!match) return undefined;
  const [, id = '', n = '0', title = ''] = match;
  return { id, n: Number.parseInt(n, 10), title };
}

/**
 * The heading's own text as written (so `[id]` stays literal even when a link
 * definition of the same label exists): ATX markers and a setext underline removed.
 */
function headingSource(body: string, node: Heading): string {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined) return '';
  const raw = body.slice(start, end);
  if (/^ {0,3}#/.test(raw)) return atxText(raw);
  const lines = raw.split(/\r?\n/);
  return lines
    .slice(0, -1)
    .map((line) => line.trim())
    .join(' ')
    .trim();
}

/** The content of an ATX heading line: opening and closing `#` sequences removed. */
function atxText(line: string): string {
  return line
    .replace(/^ {0,3}#{1,6}(?=[ \t]|$)[ \t]*/, '')
    .replace(/(?:^|[ \t]+)#+[ \t]*$/, '')
    .trim();
}
