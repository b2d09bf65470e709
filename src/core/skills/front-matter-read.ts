/**
 * Front matter is data (API.md §10, DESIGN.md "Trust boundaries"): the one place org reads
 * the front matter of a markdown text, whatever it came from (a skill file, an API write,
 * an imported SKILL.md, a file the CLI lints).
 *
 * - Only YAML front matter opened by a line that is exactly `---` is read (trailing spaces
 *   aside). gray-matter picks a parser from what follows the `---` (`---js` evaluates the
 *   block as JavaScript); here such a text never reaches it, and its engines are replaced
 *   anyway: YAML is the only one, every other name (`js`, `javascript`, `coffee`, `json`, …)
 *   is refused.
 * - YAML aliases (`*name`) are refused before anything is built from them: a few hundred
 *   bytes of nested aliases expand into gigabytes once stringified.
 *
 * Every other module reads front matter through {@link readFrontMatter} and writes it with
 * {@link stringifyFrontMatter}; nothing else imports gray-matter (a test checks it).
 */
import matter from 'gray-matter';
import { Lexer, parseDocument, visit } from 'yaml';

/** Why a text's front matter cannot be read. `line` is the 1-based line of the YAML text, when known. */
export class FrontMatterError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = 'FrontMatterError';
  }
}

/** The opening line of front matter: exactly `---` (spaces or tabs after it are tolerated, a language name is not). */
const OPENING = /^---[ \t]*$/;

/** True when `text` (after a byte order mark) opens with a front matter line that is exactly `---`. */
export function opensFrontMatter(text: string): boolean {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const end = body.indexOf('\n');
  const first = (end < 0 ? body : body.slice(0, end)).replace(/\r$/, '');
  return OPENING.test(first);
}

/** What the opening line says when it is not exactly `---`, for the refusal. */
function describeOpening(text: string): string {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const first = body.split('\n', 1)[0]!.replace(/\r$/, '');
  if (first.startsWith('---')) return `its first line is "${first.slice(0, 40)}": only YAML front matter opened by a line that is exactly --- is read (a language after --- is never run)`;
  return 'it must start with a line that is exactly ---, then YAML, then ---';
}

/** True when a YAML text uses an alias (`*name`). Checked on the parse tree; a text the parser rejects is scanned token by token. */
export function usesAlias(yaml: string): boolean {
  // Almost every front matter has no `*` at all: nothing to parse then.
  if (!yaml.includes('*')) return false;
  const doc = parseDocument(yaml, { version: '1.1', uniqueKeys: false });
  if (doc.errors.length === 0) {
    let found = false;
    visit(doc, {
      Alias() {
        found = true;
        return visit.BREAK;
      },
    });
    return found;
  }
  // A plain scalar never starts with `*`: a token that does is an alias.
  for (const token of new Lexer().lex(yaml)) if (token.startsWith('*')) return true;
  return false;
}

/** gray-matter's own YAML engine (js-yaml's safe schema), which reads data only: kept, behind the alias check. */
const yamlEngine = (matter as unknown as { engines: { yaml: { parse: (text: string) => object; stringify: (data: object, options?: object) => string } } }).engines.yaml;

/** The YAML engine every read uses: aliases refused, then the YAML read as data (no tag that builds anything but data). */
function parseYaml(yaml: string): object {
  if (usesAlias(yaml)) throw new FrontMatterError('YAML aliases (*name) are not allowed in front matter: write the value out');
  return yamlEngine.parse(yaml);
}

function refuse(language: string) {
  return {
    parse: (): never => {
      throw new FrontMatterError(`front matter in ${language} is never read: only YAML front matter opened by a line that is exactly --- is`);
    },
    stringify: (): never => {
      throw new FrontMatterError(`front matter is only ever written as YAML (not ${language})`);
    },
  };
}

/**
 * The options every gray-matter call of org passes: an options object (without one
 * gray-matter caches by text), YAML as the language, and engines that read YAML only.
 */
export const MATTER_OPTIONS = Object.freeze({
  language: 'yaml',
  engines: {
    yaml: { parse: parseYaml, stringify: yamlEngine.stringify },
    javascript: refuse('JavaScript'),
    json: refuse('JSON'),
    coffee: refuse('CoffeeScript'),
  },
});

/** A text's front matter as data and the markdown after it. */
export interface ReadFrontMatter {
  data: Record<string, unknown>;
  content: string;
}

/**
 * Reads the front matter of `text`. Throws {@link FrontMatterError} when the text does not
 * open with a line that is exactly `---`, or its YAML uses aliases; YAML syntax errors are
 * thrown as the YAML reader reports them (with their `mark`).
 */
export function readFrontMatter(text: string): ReadFrontMatter {
  if (!opensFrontMatter(text)) throw new FrontMatterError(`no front matter to read: ${describeOpening(text)}`, 1);
  const file = matter(text, MATTER_OPTIONS as never);
  const data = file.data as unknown;
  return { data: data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {}, content: file.content };
}

/** A markdown text with `data` as its YAML front matter before `content`. */
export function stringifyFrontMatter(content: string, data: Record<string, unknown>): string {
  return matter.stringify({ content }, data, MATTER_OPTIONS as never);
}
