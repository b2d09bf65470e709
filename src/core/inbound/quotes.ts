/**
 * Reduces the text of an e-mail reply to what the sender wrote: drops `>`-quoted lines
 * and cuts at the usual markers of a quoted original ("On … wrote:", "-----Original
 * Message-----", an Outlook "From:/Sent:" header block) and at the signature delimiter.
 */

const ORIGINAL_MESSAGE = /^\s*-{2,}\s*(original message|forwarded message)\s*-{2,}\s*$/i;
const UNDERSCORES = /^\s*_{10,}\s*$/;
const WROTE = /\bwrote:\s*$/i;
const ON_LINE = /^\s*On\s.+/;
const HEADER_FROM = /^\s*\*?From:\*?\s/i;
const HEADER_NEXT = /^\s*\*?(Sent|Date|To):\*?\s/i;
const SIGNATURE = /^-- ?$/;

/** The new text of a reply, without quoted history or signature; '' when nothing is left. */
export function stripQuotedReply(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const next = lines[index + 1] ?? '';
    if (SIGNATURE.test(line) || ORIGINAL_MESSAGE.test(line) || UNDERSCORES.test(line)) break;
    // "On Mon, 1 Jan 2024, Alice <a@example.com> wrote:" — sometimes wrapped over two lines.
    if (ON_LINE.test(line) && (WROTE.test(line) || (WROTE.test(next) && !next.startsWith('>')))) break;
    if (HEADER_FROM.test(line) && HEADER_NEXT.test(next)) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n').trim();
}
