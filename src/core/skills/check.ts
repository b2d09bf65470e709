/**
 * The one validator of skill files: the server's loader and API writes, `org skills
 * lint`, `org skills new`/`edit` and the web editor all apply these rules, so a file
 * the CLI accepts is one the server accepts. Every finding carries the line of the file
 * it is about.
 *
 * Errors make a file invalid (the server skips it and lists it as a problem; an API
 * write answers 400): front matter that is not YAML or not valid, a malformed step
 * heading, a duplicate step id, a step without a title, a body over 256 KiB.
 * Warnings are advice the server accepts: step numbering, step ids that are not slugs,
 * no steps at all, a complete skill without a summary.
 */
import { FrontMatterError, opensFrontMatter, readFrontMatter } from './front-matter-read.js';
import { lineOfMember } from './front-matter-source.js';
import { MAX_FRONTMATTER_BYTES, validateFrontmatter, type FrontmatterDefaults } from './frontmatter.js';
import { isValidSlug } from './slug.js';
import { matchStep, parseSteps } from './steps.js';
import type { Skill, SkillStep } from './types.js';

/** Largest body accepted, in bytes (UTF-8). */
export const MAX_BODY_BYTES = 256 * 1024;

/** One finding about a skill file. */
export interface SkillIssue {
  /** 1-based line of the file. */
  line: number;
  severity: 'error' | 'warning';
  message: string;
  /** The front matter member or `body` the finding is about (API field errors use it). */
  path: string;
}

/** Outcome of {@link checkSkillText}: the skill when it has no error, and every finding. */
export interface SkillCheck {
  skill?: Skill;
  issues: SkillIssue[];
  /** Line of the file where the body starts (1-based). */
  bodyLine: number;
}

/** A `key: value` line whose unquoted value itself holds ": ", which YAML cannot read. */
const UNQUOTED_COLON = /^[A-Za-z_][\w-]*:\s+(?!['"[{|>])[^#]*:\s/;
const STEPISH = /^\s{0,3}##\s+(?:\[[^\]]*\]\s*)?step\s*\d+/i;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/**
 * The canonical body: line endings as `\n` and a final newline when non-empty. The file
 * format cannot tell `abc` from `abc\n`, so every stored body is canonical.
 */
export function normalizeBody(body: string): string {
  const unix = body.replace(/\r\n?/g, '\n');
  if (unix.trim() === '') return '';
  return unix.endsWith('\n') ? unix : `${unix}\n`;
}

/** Level-2 headings of a body as written, with their body lines (outside fenced code). */
function headings(lines: string[]): { step: SkillStep | undefined; line: number; raw: string }[] {
  const found: { step: SkillStep | undefined; line: number; raw: string }[] = [];
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const marker = FENCE.exec(line)?.[1];
    if (marker) {
      if (!fence) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      return;
    }
    if (fence || !/^\s{0,3}##\s/.test(line)) return;
    const text = line.replace(/^\s{0,3}##\s+/, '').replace(/\s+#+\s*$/, '');
    found.push({ step: matchStep(text), line: i + 1, raw: line });
  });
  return found;
}

/**
 * Checks the steps of a body: malformed step headings, duplicate ids and missing titles
 * (errors), numbering, id shape and a body without steps (warnings). `firstLine` is the
 * file line of the body's first line, so findings name file lines.
 */
export function checkSteps(body: string, firstLine = 1, steps: SkillStep[] = parseSteps(body)): SkillIssue[] {
  const issues: SkillIssue[] = [];
  const at = (line: number) => firstLine + line - 1;
  const issue = (line: number, severity: SkillIssue['severity'], message: string) => issues.push({ line: at(line), severity, message, path: 'body' });
  const lines = body.split(/\r?\n/);
  const written = headings(lines);
  for (const heading of written) {
    if (!heading.step && STEPISH.test(heading.raw)) issue(heading.line, 'error', 'malformed step heading: write it as ## [step-id] Step <n>: <title>');
  }
  if (steps.length === 0) {
    issue(1, 'warning', 'no steps: write sections headed ## [step-id] Step 1: <title>');
    return issues;
  }
  const located = written.filter((heading) => heading.step);
  const firstUse = new Map<string, number>();
  let cursor = 0;
  steps.forEach((step, index) => {
    const found = located.findIndex((heading, i) => i >= cursor && heading.step?.id === step.id && heading.step.n === step.n);
    const line = found >= 0 ? located[found]!.line : 1;
    if (found >= 0) cursor = found + 1;
    if (step.n !== index + 1) issue(line, 'warning', `step numbering: expected Step ${index + 1}, found Step ${step.n}`);
    const seen = firstUse.get(step.id);
    if (seen !== undefined) issue(line, 'error', `duplicate step id "${step.id}" (first used at line ${at(seen)})`);
    else firstUse.set(step.id, line);
    if (!isValidSlug(step.id)) issue(line, 'warning', `step id "${step.id}" should be lowercase words joined by hyphens`);
    if (!step.title.trim()) issue(line, 'error', `step ${step.n} has no title`);
  });
  return issues;
}

/** The `mark` of a js-yaml error: where in the YAML text (0-based line) it happened. */
function yamlMark(error: unknown): { line: number; reason: string } | undefined {
  const mark = (error as { mark?: { line?: unknown } } | undefined)?.mark;
  const reason = (error as { reason?: unknown } | undefined)?.reason;
  if (typeof mark?.line !== 'number') return undefined;
  return { line: mark.line, reason: typeof reason === 'string' ? reason : 'unreadable' };
}

/**
 * Checks the text of `<slug>.md` and parses it when it has no error.
 * @param defaults values for optional members the file leaves out
 */
export function checkSkillText(slug: string, text: string, defaults: FrontmatterDefaults): SkillCheck {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const fail = (line: number, message: string, path = 'frontmatter'): SkillCheck => ({ issues: [{ line, severity: 'error', message, path }], bodyLine: 1 });
  if (!opensFrontMatter(text)) {
    // A language after the dashes (`---js`) would select another parser: never read.
    return lines[0]?.startsWith('---') && lines[0].trim() !== '---'
      ? fail(1, `no YAML front matter: the first line must be exactly --- (found "${lines[0].slice(0, 40)}"; a language after --- is never read or run)`)
      : fail(1, 'no front matter: the file must start with a --- line, then YAML, then ---');
  }
  const end = lines.findIndex((line, i) => i > 0 && (line.trim() === '---' || line.trim() === '...'));
  if (end < 0) return fail(1, 'the front matter is not closed: add a --- line after it');
  const bodyLine = end + 2;
  // The YAML parser recurses: bound the text before it sees it (nesting is bounded after).
  if (Buffer.byteLength(lines.slice(1, end).join('\n')) > MAX_FRONTMATTER_BYTES) return fail(1, `front matter must be at most ${MAX_FRONTMATTER_BYTES / 1024} KiB`);

  let data: unknown;
  let content: string;
  try {
    const file = readFrontMatter(text);
    data = file.data;
    content = file.content;
  } catch (error) {
    if (error instanceof RangeError) return fail(1, 'front matter nests too deeply to be read');
    if (error instanceof FrontMatterError) return fail(error.line ?? 1, error.message);
    // The YAML starts on file line 2: its line n (0-based) is file line n + 2. An error
    // found only at the end of the YAML (an unquoted colon) belongs to its last line.
    const mark = yamlMark(error);
    let line = mark ? Math.min(mark.line + 2, end) : 1;
    const reason = mark?.reason ?? (error instanceof Error ? (error.message.split('\n')[0] ?? 'unreadable') : 'unreadable');
    // js-yaml notices an unquoted ": " in a value only on the next line: blame the value.
    const colonAt = [line, line - 1].find((candidate) => candidate > 1 && candidate <= end && UNQUOTED_COLON.test(lines[candidate - 1] ?? ''));
    if (colonAt !== undefined) line = colonAt;
    return fail(line, `front matter is not valid YAML: ${reason}${colonAt !== undefined ? ' (a value with ": " in it needs quotes)' : ''}`);
  }

  const issues: SkillIssue[] = [];
  const checked = validateFrontmatter(data, defaults);
  if (!checked.ok) {
    for (const error of checked.errors) {
      issues.push({ line: lineOfMember(text, error.path.replace(/\[\d+\]/g, '')) ?? 1, severity: 'error', message: `${error.path.replace(/^frontmatter\./, '')} ${error.message}`, path: error.path });
    }
  }
  const body = normalizeBody(content);
  // Measured without the final newline that normalising may have added.
  if (new TextEncoder().encode(body.replace(/\n$/, '')).length > MAX_BODY_BYTES) issues.push({ line: bodyLine, severity: 'error', message: `the body is larger than ${MAX_BODY_BYTES / 1024} KiB`, path: 'body' });
  const steps = parseSteps(body);
  issues.push(...checkSteps(body, bodyLine, steps));
  if (checked.ok && checked.frontmatter.status === 'complete' && !checked.frontmatter.summary.trim()) {
    issues.push({ line: lineOfMember(text, 'summary') ?? 1, severity: 'warning', message: 'a complete skill should have a one-sentence summary', path: 'frontmatter.summary' });
  }
  issues.sort((a, b) => a.line - b.line || (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  if (!checked.ok || issues.some((issue) => issue.severity === 'error')) return { issues, bodyLine };
  return { skill: { slug, frontmatter: checked.frontmatter, body, steps }, issues, bodyLine };
}
