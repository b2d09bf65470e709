/**
 * Steps for a foreign skill: Agent Skills write their instructions as sections or a
 * numbered list, org skills as `## [<id>] Step <n>: <title>` sections. A body that
 * already has org steps is kept; otherwise its level-2 sections become steps, or else
 * the items of its first numbered list do. Text outside them is kept as it is.
 */
import type { List, Root } from 'mdast';
import { remark } from 'remark';
import { parseSteps } from '../steps.js';

const processor = remark();
const TITLE_MAX = 120;

/** A step id from a title: lowercase words joined by hyphens, unique within `taken`. */
export function stepId(title: string, taken: Set<string>): string {
  const base =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .split('-')
      .slice(0, 6)
      .join('-') || 'step';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').replace(/[:.]\s*$/, '').trim();
  return flat.length > TITLE_MAX ? `${flat.slice(0, TITLE_MAX - 1)}…` : flat;
}

/**
 * The body with org steps.
 *
 * @example
 * stepsFromMarkdown('# Deploy\n\n1. Build the image\n2. Push it\n')
 * // → '# Deploy\n\n## [build-the-image] Step 1: Build the image\n\n## [push-it] Step 2: Push it\n'
 */
export function stepsFromMarkdown(body: string): string {
  if (parseSteps(body).length > 0) return body;
  const tree = processor.parse(body) as Root;
  const taken = new Set<string>();
  const sections = tree.children.filter((node) => node.type === 'heading' && node.depth === 2);
  if (sections.length > 0) {
    let out = '';
    let cursor = 0;
    sections.forEach((heading, index) => {
      const start = heading.position?.start.offset ?? 0;
      const end = heading.position?.end.offset ?? start;
      const firstLine = body.slice(start, end).split('\n')[0] ?? '';
      const title = oneLine(firstLine.replace(/^ {0,3}#{1,6}[ \t]*/, '').replace(/[ \t]+#+[ \t]*$/, '')) || `Step ${index + 1}`;
      out += `${body.slice(cursor, start)}## [${stepId(title, taken)}] Step ${index + 1}: ${title}`;
      cursor = end;
    });
    return out + body.slice(cursor);
  }
  const list = tree.children.find((node): node is List => node.type === 'list' && node.ordered === true && node.children.length >= 2);
  if (!list) return body;
  const start = list.position?.start.offset ?? 0;
  const end = list.position?.end.offset ?? start;
  const steps = list.children.map((item, index) => {
    const raw = body.slice(item.position?.start.offset ?? 0, item.position?.end.offset ?? 0);
    const marker = /^\s*\d{1,9}[.)][ \t]*/.exec(raw)?.[0] ?? '';
    const lines = raw.slice(marker.length).split('\n');
    const title = oneLine(lines[0] ?? '') || `Step ${index + 1}`;
    const indent = marker.length;
    const rest = lines
      .slice(1)
      .map((line) => (line.slice(0, indent).trim() === '' ? line.slice(indent) : line.trimStart()))
      .join('\n')
      .trim();
    return `## [${stepId(title, taken)}] Step ${index + 1}: ${title}${rest ? `\n\n${rest}` : ''}`;
  });
  return `${body.slice(0, start)}${steps.join('\n\n')}${body.slice(end)}`;
}
