/**
 * The text of each step of a skill body: everything between a step heading and the
 * next heading of level 1 or 2, located with remark's syntax tree (so `##` inside code
 * blocks never cuts a section). Runtimes use it to walk a playbook.
 */
import type { Root } from 'mdast';
import { remark } from 'remark';
import { parseSteps } from './steps.js';
import type { SkillStep } from './types.js';

const processor = remark();

/** A step with its instructions. */
export interface StepSection extends SkillStep {
  /** The markdown below the step heading, trimmed. */
  text: string;
}

/** The steps of `body` with their text, in document order. */
export function stepSections(body: string): StepSection[] {
  const steps = parseSteps(body);
  if (steps.length === 0) return [];
  const tree = processor.parse(body) as Root;
  const headings = tree.children.filter((node) => node.type === 'heading' && node.depth <= 2);
  const sections: StepSection[] = [];
  let index = 0;
  for (const [position, heading] of headings.entries()) {
    if (heading.type !== 'heading' || heading.depth !== 2) continue;
    const step = steps[index];
    if (!step) break;
    const source = body.slice(heading.position?.start.offset ?? 0, heading.position?.end.offset ?? 0);
    if (!source.includes(`[${step.id}]`)) continue;
    const start = heading.position?.end.offset ?? 0;
    const end = headings[position + 1]?.position?.start.offset ?? body.length;
    sections.push({ ...step, text: body.slice(start, end).trim() });
    index++;
  }
  return sections;
}
