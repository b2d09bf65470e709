/**
 * The on-disk form of a skill: YAML front matter then the markdown body, read and
 * written through `front-matter-read.ts` (gray-matter with YAML as its only engine).
 * Parsing never throws: a file that does not parse or validate yields a message.
 */
import type { FieldError } from '../errors.js';
import { checkSkillText, normalizeBody, type SkillIssue } from './check.js';
import { stringifyFrontMatter } from './front-matter-read.js';
import { setOwn, type FrontmatterDefaults } from './frontmatter.js';
import type { Skill, SkillFrontmatter } from './types.js';

/**
 * Outcome of {@link parseSkillText}: every finding of the check, and on failure the
 * 1-based `line` of the file where the first error is.
 */
export type ParseResult = { ok: true; skill: Skill; issues: SkillIssue[] } | { ok: false; message: string; errors: FieldError[]; issues: SkillIssue[]; line?: number };

export { normalizeBody };

/**
 * Parses the text of `<slug>.md` into a skill with its steps, by the rules of
 * {@link checkSkillText}: any error makes it fail, with a message naming the lines.
 * @param defaults values for optional members the file leaves out
 */
export function parseSkillText(slug: string, text: string, defaults: FrontmatterDefaults): ParseResult {
  const checked = checkSkillText(slug, text, defaults);
  if (checked.skill) return { ok: true, skill: checked.skill, issues: checked.issues };
  const errors = checked.issues.filter((issue) => issue.severity === 'error');
  const lined = (issue: SkillIssue) => (issue.path === 'body' ? `${issue.message} (body line ${issue.line - checked.bodyLine + 1})` : issue.message);
  // `line` names where the first error is; any further error carries its own line.
  return {
    ok: false,
    message: errors.map((issue, i) => (i === 0 ? issue.message : `line ${issue.line}: ${issue.message}`)).join('; '),
    ...(errors[0] ? { line: errors[0].line } : {}),
    // Field errors for API answers: where (front matter member or body) and what.
    errors: errors.map((issue) => ({ path: issue.path, message: issue.path.startsWith('frontmatter.') ? issue.message.replace(/^\S+ /, '') : lined(issue) })),
    issues: checked.issues,
  };
}

/**
 * The file text for a front matter and body (body normalised first). The body goes in
 * as `{ content }`: given a plain string, gray-matter would first parse it as a file,
 * so a body starting with `---` would lose its first lines to a bogus front matter.
 */
export function serializeSkill(frontmatter: SkillFrontmatter, body: string): string {
  const data = stripUndefined(frontmatter);
  return stringifyFrontMatter(normalizeBody(body), data);
}

function stripUndefined(frontmatter: SkillFrontmatter): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(frontmatter)) if (value !== undefined) setOwn(data, key, value);
  return data;
}
