/**
 * The front matter as source text, for the two jobs that need more than its parsed
 * value: saying on which line of the file a member sits (parse problems are reported
 * with a line), and rewriting only the members that changed so an update through the
 * API keeps the author's YAML formatting, comments and member order (a git diff then
 * shows the change, not a reformatting). Reading goes through the `yaml` library's
 * document model with YAML 1.1 scalars, the stricter of the two readers for quoting:
 * a value it writes unquoted reads back the same through gray-matter.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, LineCounter, isCollection, isMap, isScalar, parseDocument, type Node, type Pair } from 'yaml';

/** The file split around its front matter: the opening line, the YAML source, the closing line and the body. */
interface Split {
  open: string;
  source: string;
  close: string;
}

const FRONT_MATTER = /^(\uFEFF?---[ \t]*\r?\n)([\s\S]*?)(^---[ \t]*(?:\r?\n|$))/m;
const STRINGIFY = { lineWidth: 0, flowCollectionPadding: false } as const;

function split(text: string): Split | undefined {
  const match = FRONT_MATTER.exec(text);
  if (!match || match.index !== 0) return undefined;
  return { open: match[1]!, source: match[2]!, close: match[3]! };
}

/** The top-level pairs of the front matter, or undefined when it is not a clean mapping. */
function pairsOf(source: string, lineCounter?: LineCounter): Pair<Node, Node | null>[] | undefined {
  const doc = parseDocument(source, { version: '1.1', ...(lineCounter ? { lineCounter } : {}) });
  if (doc.errors.length > 0) return undefined;
  if (doc.contents === null) return [];
  if (!isMap(doc.contents)) return undefined;
  const pairs = doc.contents.items as Pair<Node, Node | null>[];
  return pairs.every((pair) => isScalar(pair.key) && pair.key.range) ? pairs : undefined;
}

/**
 * The 1-based line of the file on which a top-level front matter member starts
 * (`member` may be a field path like `tags.1`: its first segment is looked up).
 * Undefined when the member is absent or the front matter does not parse.
 */
export function lineOfMember(text: string, member: string): number | undefined {
  const parts = split(text);
  if (!parts) return undefined;
  const counter = new LineCounter();
  // Field paths of validation errors start with `frontmatter.`.
  const name = member.replace(/^frontmatter\./, '').split('.')[0];
  const pair = pairsOf(parts.source, counter)?.find((candidate) => String((candidate.key as { value: unknown }).value) === name);
  if (!pair?.key.range) return undefined;
  return lineCount(parts.open) + counter.linePos(pair.key.range[0]).line;
}

function lineCount(text: string): number {
  return text.split('\n').length - 1;
}

/** One `key: value` pair as YAML (no final newline); `flow` keeps a list or map on one line, `[a, b]`. */
function pairText(key: string, value: unknown, flow = false): string {
  const doc = new Document({ [key]: value }, { version: '1.1' });
  const node = doc.get(key, true);
  if (flow && isCollection(node)) node.flow = true;
  return doc.toString(STRINGIFY).replace(/\n$/, '');
}

/**
 * The text of a skill file whose front matter becomes `next`, written over
 * `previousText` so that members whose value did not change keep their exact source
 * (formatting, quoting, comments, order). Changed members are rewritten in place,
 * removed ones deleted, new ones appended; a list or map written inline stays inline. `previous` is the front matter as it was
 * read from `previousText` (its values decide what "unchanged" means). Undefined when
 * the previous file has no front matter that parses as a mapping; the caller then
 * writes the canonical form.
 */
export function rewriteFrontMatter(
  previousText: string,
  previous: Readonly<Record<string, unknown>>,
  next: Readonly<Record<string, unknown>>,
  body: string,
): string | undefined {
  const parts = split(previousText);
  if (!parts) return undefined;
  const { source } = parts;
  const pairs = pairsOf(source);
  if (!pairs) return undefined;
  const lineStart = (offset: number) => source.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = (offset: number) => {
    const end = source.indexOf('\n', offset);
    return end < 0 ? source.length : end + 1;
  };

  const edits: { start: number; end: number; text: string }[] = [];
  const seen = new Set<string>();
  for (const pair of pairs) {
    const key = String((pair.key as { value: unknown }).value);
    if (seen.has(key)) return undefined; // a duplicate key: leave it to the canonical writer
    seen.add(key);
    const start = lineStart(pair.key.range![0]);
    const valueEnd = (pair.value?.range ?? pair.key.range!)[1];
    const value = next[key];
    if (value === undefined) edits.push({ start, end: lineEnd(valueEnd), text: '' });
    else if (!isDeepStrictEqual(previous[key], value)) {
      // A list or map the author wrote inline stays inline.
      edits.push({ start, end: valueEnd, text: pairText(key, value, isCollection(pair.value) && pair.value.flow === true) });
    }
  }
  let edited = source;
  for (const edit of edits.sort((a, b) => b.start - a.start)) edited = edited.slice(0, edit.start) + edit.text + edited.slice(edit.end);
  const added = Object.entries(next).filter(([key, value]) => value !== undefined && !seen.has(key));
  if (added.length > 0) {
    if (edited !== '' && !edited.endsWith('\n')) edited += '\n';
    edited += added.map(([key, value]) => `${pairText(key, value)}\n`).join('');
  }
  const close = parts.close.endsWith('\n') ? parts.close : `${parts.close}\n`;
  return `${parts.open}${edited}${close}${body}`;
}
