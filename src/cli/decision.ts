/** How the CLI shows a decision: once, in full. */

/**
 * The text after `◆ Decision: `: the body when it begins with the title (a title is the
 * body's first sentence, cut), so the sentence is not shown twice; else the title, and
 * the body after a dash when it says more.
 */
export function decisionText(title: string, body: string): string {
  const head = title.replace(/…$/, '').trim();
  if (!body.trim() || body.trim() === title.trim()) return title;
  if (head && body.trimStart().startsWith(head)) return body.trim();
  return `${title} — ${body.trim()}`;
}
