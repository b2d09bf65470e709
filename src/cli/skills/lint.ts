/**
 * `org skills lint`: checks skill files by the server's own rules (the core's
 * checkSkillText: what it calls an error, the server refuses too), each message located
 * at a `file:line`.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { checkSkillText, isSkillFileName, isValidSlug as isSlug, lineOfMember, triggerAdvice } from '../../core/skills/index.js';

/** One finding. */
export interface LintMessage {
  file: string;
  line: number;
  severity: 'error' | 'warning';
  message: string;
}

/** Formats a finding as `file:line: severity: message`. */
export function formatLint(message: LintMessage): string {
  return `${message.file}:${message.line}: ${message.severity}: ${message.message}`;
}

const DEFAULTS = { learned_by: 'user', learned_at: new Date(0).toISOString(), category: 'general', difficulty: 'medium' } as const;

/** Lints the text of one skill file (`file` is how messages name it): the server's rules, plus the file name and advice on triggers. */
export function lintSkillText(file: string, text: string): LintMessage[] {
  const slug = basename(file).replace(/\.md$/, '');
  const messages: LintMessage[] = [];
  if (!isSlug(slug)) messages.push({ file, line: 1, severity: 'error', message: `the file name must be <slug>.md with a slug of lowercase words joined by hyphens ("${slug}" is not)` });
  const checked = checkSkillText(isSlug(slug) ? slug : 'x', text, DEFAULTS);
  for (const issue of checked.issues) messages.push({ file, line: issue.line, severity: issue.severity, message: issue.message });
  // Advice for authors the server does not apply: enough example requests to be found by.
  const advice = checked.skill && triggerAdvice(checked.skill.frontmatter);
  if (checked.skill && advice) messages.push({ file, line: lineOfMember(text, checked.skill.frontmatter.triggers ? 'triggers' : 'tags') ?? 1, severity: 'warning', message: advice });
  return messages;
}

/** The skill files named by `paths`: files as given, folders expanded to their `*.md` files. */
export async function skillFilesOf(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path);
    if (info.isDirectory()) {
      const names = (await readdir(path)).filter(isSkillFileName).sort();
      files.push(...names.map((name) => join(path, name)));
    } else files.push(path);
  }
  return files;
}

/** Lints files from disk; `display` maps a path to how messages name it. */
export async function lintFiles(files: string[], display: (file: string) => string = (file) => file): Promise<LintMessage[]> {
  const messages: LintMessage[] = [];
  for (const file of files) messages.push(...lintSkillText(display(file), await readFile(file, 'utf8')));
  return messages;
}
