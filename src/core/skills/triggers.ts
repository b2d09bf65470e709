/**
 * Triggers in skill files: the `triggers` front-matter member lists example requests a
 * person would type when they need the skill ("the site is down"). Search indexes them
 * as their own, strongly weighted field; these helpers add them to a skill file's text
 * (a skill started from a gap gets the message as its first trigger) and say when a
 * skill should have some.
 */
import { readFrontMatter, stringifyFrontMatter } from './front-matter-read.js';
import type { SkillFrontmatter } from './types.js';

/** How many triggers a reviewed skill should list. */
export const SUGGESTED_TRIGGERS = { min: 5, max: 10 } as const;

/**
 * The file text with `triggers` prepended to the front matter's list (duplicates and
 * blanks dropped). The body is left as it is.
 * @example addTriggers(templateText, ['our website is down'])
 */
export function addTriggers(text: string, triggers: readonly string[]): string {
  const file = readFrontMatter(text);
  const data = file.data;
  const existing = Array.isArray(data.triggers) ? data.triggers.filter((t): t is string => typeof t === 'string') : [];
  const merged = [...new Set([...triggers, ...existing].map((t) => t.trim()).filter((t) => t.length > 0))];
  data.triggers = merged;
  return stringifyFrontMatter(file.content, data);
}

/** A suggestion about a skill's triggers, or undefined when it has enough (drafts are not nagged). */
export function triggerAdvice(frontmatter: SkillFrontmatter): string | undefined {
  if (frontmatter.status !== 'complete') return undefined;
  const count = frontmatter.triggers?.length ?? 0;
  if (count >= SUGGESTED_TRIGGERS.min) return undefined;
  const what = count === 0 ? 'no triggers' : `only ${count} trigger${count === 1 ? '' : 's'}`;
  return `${what}: list ${SUGGESTED_TRIGGERS.min} to ${SUGGESTED_TRIGGERS.max} requests a person would type when they need this skill (search matches them first)`;
}
