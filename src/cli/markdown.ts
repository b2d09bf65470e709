/** Markdown for the terminal: marked with marked-terminal (headings, lists, code, emphasis). */
import { Marked, type MarkedExtension } from 'marked';
import { markedTerminal } from 'marked-terminal';

/** Renders markdown as terminal text with ANSI styles, reflowed to `width` columns. */
export function renderMarkdown(markdown: string, width = 80): string {
  const marked = new Marked(markedTerminal({ width, reflowText: true, tab: 2 }) as unknown as MarkedExtension);
  return (marked.parse(markdown, { async: false }) as string).replace(/\n+$/, '');
}
