/**
 * The on-disk form of a skill: YAML front matter then the markdown body, read and
 * written with gray-matter (always with an options object, so its shared cache is never
 * used). Parsing never throws: a file that does not parse or validate yields a message.
 */
import matter from 'gray-matter';
import type { FieldError } from '../errors.js';
import { lineOfMember } from './front-matter-source.js';
import { MAX_FRONTMATTER_BYTES, setOwn, validateFrontmatter, type FrontmatterDefaults } from './frontmatter.js';
import { parseSteps } from './steps.js';
import type { Skill, SkillFrontmatter } from './types.js';

/**
 * Outcome of {@link parseSkillText}. A failure names the 1-based `line` of the file
 * where the problem is, when there is one (a YAML error, or the first invalid member).
 */
export type ParseResult = { ok: true; skill: Skill } | { ok: false; message: string; errors: FieldError[]; line?: number };

/** What js-yaml (inside gray-matter) throws: the reason and where, 0-based in the front matter. */
interface YamlError {
  reason?: string;
  mark?: { line?: number };
}

/**
 * The canonical body: line endings as `\n` and a final newline when non-empty. The
 * file format cannot tell `abc` from `abc\n`, so every stored body is canonical and
 * round-trips unchanged.
 */
export function normalizeBody(body: string): string {
  const unix = body.replace(/\r\n?/g, '\n');
  if (unix.trim() === '') return '';
  return unix.endsWith('\n') ? unix : `${unix}\n`;
}

/**
 * Parses the text of `<slug>.md` into a skill with its steps.
 * @param defaults values for optional members the file leaves out (for example the
 *   file's modification time as `learned_at`)
 */
export function parseSkillText(slug: string, text: string, defaults: FrontmatterDefaults): ParseResult {
  // The YAML parser recurses: bound the text before it sees it (nesting is bounded after).
  const end = text.indexOf('\n---', 3);
  if (/^\uFEFF?---/.test(text) && (end < 0 ? text.length : end) > MAX_FRONTMATTER_BYTES + 8) {
    return { ok: false, message: `front matter must be at most ${MAX_FRONTMATTER_BYTES / 1024} KiB`, errors: [] };
  }
  let data: unknown;
  let content: string;
  try {
    const file = matter(text, {});
    data = file.data;
    content = file.content;
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, message: 'front matter nests too deeply to be read', errors: [] };
    const { reason, mark } = error as YamlError;
    const detail = reason ?? (error instanceof Error ? error.message.split('\n')[0] : 'unreadable');
    // The front matter gray-matter hands to js-yaml starts on the file's first line (after `---`).
    const line = typeof mark?.line === 'number' ? mark.line + 1 : undefined;
    return { ok: false, message: `front matter is not valid YAML: ${detail}`, errors: [], ...(line ? { line } : {}) };
  }
  if (!/^\uFEFF?---/.test(text)) {
    return { ok: false, message: 'no front matter: the file must start with a --- line', errors: [], line: 1 };
  }
  const checked = validateFrontmatter(data, defaults);
  if (!checked.ok) {
    const line = checked.errors.map((e) => lineOfMember(text, e.path)).find((found) => found !== undefined);
    return {
      ok: false,
      message: checked.errors.map((e) => `${e.path} ${e.message}`).join('; '),
      errors: checked.errors,
      ...(line ? { line } : {}),
    };
  }
  const body = normalizeBody(content);
  return { ok: true, skill: { slug, frontmatter: checked.frontmatter, body, steps: parseSteps(body) } };
}

/**
 * The file text for a front matter and body (body normalised first). The body goes in
 * as `{ content }`: given a plain string, gray-matter would first parse it as a file,
 * so a body starting with `---` would lose its first lines to a bogus front matter.
 */
export function serializeSkill(frontmatter: SkillFrontmatter, body: string): string {
  const data = stripUndefined(frontmatter);
  return matter.stringify({ content: normalizeBody(body) }, data, {});
}

function stripUndefined(frontmatter: SkillFrontmatter): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(frontmatter)) if (value !== undefined) setOwn(data, key, value);
  return data;
}
