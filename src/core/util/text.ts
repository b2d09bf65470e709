/** Short text for messages, shared by every layer (runtimes, CLI). */

/** One line of at most `length` characters (whitespace collapsed), with an ellipsis when cut. */
export function excerpt(text: string, length = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}
