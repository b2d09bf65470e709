/** Short text for messages, shared by every layer (runtimes, CLI). */

/** The first `length` characters of `text` (one fewer rather than half of a surrogate pair); `text` itself when shorter. */
export function headOf(text: string, length: number): string {
  if (text.length <= length) return text;
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

/** One line of at most `length` characters (whitespace collapsed), with an ellipsis when cut. */
export function excerpt(text: string, length = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}
