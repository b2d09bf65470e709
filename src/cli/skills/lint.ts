/**
 * `org skills lint`: checks skill files the way the server will read them (the core's
 * parseSkillText, validateFrontmatter, parseSteps), and adds what a reviewer wants:
 * step numbering, duplicate step ids, malformed step headings — each message located
 * at a `file:line`.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { MAX_BODY_BYTES, isSkillFileName, isValidSlug as isSlug, matchStep, parseSkillText, triggerAdvice } from '../../core/skills/index.js';

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
const STEPISH = /^\s{0,3}##\s+(?:\[[^\]]*\]\s*)?step\s*\d+/i;

/** Line (1-based) of member `name` in the front matter lines, else the opening line. */
function memberLine(lines: string[], end: number, member: string): number {
  for (let i = 1; i < end; i++) if (new RegExp(`^${member}\\s*:`).test(lines[i] ?? '')) return i + 1;
  return 1;
}

/** Step headings of the body as written, with their lines (outside fenced code). */
function stepHeadings(lines: string[], from: number): { id: string; n: number; title: string; line: number; raw: string }[] {
  const found: { id: string; n: number; title: string; line: number; raw: string }[] = [];
  let fence: string | undefined;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (!fence) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence || !/^\s{0,3}##\s/.test(line)) continue;
    const text = line.replace(/^\s{0,3}##\s+/, '').replace(/\s+#+\s*$/, '');
    const step = matchStep(text);
    found.push({ id: step?.id ?? '', n: step?.n ?? 0, title: step?.title ?? '', line: i + 1, raw: line });
  }
  return found;
}

/** Lints the text of one skill file (`file` is how messages name it). */
export function lintSkillText(file: string, text: string): LintMessage[] {
  const messages: LintMessage[] = [];
  const error = (line: number, message: string) => messages.push({ file, line, severity: 'error', message });
  const warn = (line: number, message: string) => messages.push({ file, line, severity: 'warning', message });
  const slug = basename(file).replace(/\.md$/, '');
  if (!isSlug(slug)) error(1, `the file name must be <slug>.md with a slug of lowercase words joined by hyphens ("${slug}" is not)`);

  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') {
    error(1, 'no front matter: the file must start with a --- line, then YAML, then ---');
    return messages;
  }
  const end = lines.findIndex((line, i) => i > 0 && (line.trim() === '---' || line.trim() === '...'));
  if (end < 0) {
    error(1, 'the front matter is not closed: add a --- line after it');
    return messages;
  }

  const parsed = parseSkillText(isSlug(slug) ? slug : 'x', text, DEFAULTS);
  if (!parsed.ok) {
    if (parsed.errors.length === 0) {
      const where = /\((\d+):\d+\)/.exec(parsed.message);
      error(where ? Number(where[1]) + 1 : 1, parsed.message);
    }
    for (const fieldError of parsed.errors) {
      const member = /^frontmatter\.([a-z_]+)/.exec(fieldError.path)?.[1] ?? '';
      error(member ? memberLine(lines, end, member) : 1, `${fieldError.path.replace(/^frontmatter\./, '')} ${fieldError.message}`);
    }
    return messages;
  }

  const { skill } = parsed;
  if (Buffer.byteLength(skill.body, 'utf8') > MAX_BODY_BYTES) error(end + 2, `the body is larger than ${MAX_BODY_BYTES / 1024} KiB`);
  if (skill.frontmatter.status === 'complete' && !skill.frontmatter.summary.trim()) {
    warn(memberLine(lines, end, 'summary'), 'a complete skill should have a one-sentence summary');
  }
  const advice = triggerAdvice(skill.frontmatter);
  if (advice) warn(memberLine(lines, end, skill.frontmatter.triggers ? 'triggers' : 'tags'), advice);

  const headings = stepHeadings(lines, end + 1);
  for (const heading of headings) {
    if (!heading.id && STEPISH.test(heading.raw)) {
      error(heading.line, 'malformed step heading: write it as ## [step-id] Step <n>: <title>');
    }
  }
  const located = headings.filter((heading) => heading.id);
  if (skill.steps.length === 0) {
    warn(end + 2, 'no steps: write sections headed ## [step-id] Step 1: <title>');
    return messages;
  }
  const firstLine = new Map<string, number>();
  let cursor = 0;
  skill.steps.forEach((step, index) => {
    const at = located.findIndex((heading, i) => i >= cursor && heading.id === step.id && heading.n === step.n);
    const line = at >= 0 ? located[at]!.line : end + 2;
    if (at >= 0) cursor = at + 1;
    if (step.n !== index + 1) error(line, `step numbering: expected Step ${index + 1}, found Step ${step.n}`);
    const seen = firstLine.get(step.id);
    if (seen !== undefined) error(line, `duplicate step id "${step.id}" (first used at line ${seen})`);
    else firstLine.set(step.id, line);
    if (!isSlug(step.id)) warn(line, `step id "${step.id}" should be lowercase words joined by hyphens`);
    if (!step.title.trim()) error(line, `step ${step.n} has no title`);
  });
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
