/**
 * One key at a time for single-key commands. Ink hands a run of plain characters that
 * arrives in one read (`ja`, `jj` then Enter, typed faster than the screen redraws) to
 * `useInput` as one input, which suits text fields but drops every key of the burst in a
 * list or a queue. {@link perKey} calls the handler once per character instead.
 */
import type { Key } from 'ink';

/** The key flags of one plain character of a burst. */
function keyOf(char: string, burst: Key): Key {
  const none = Object.fromEntries(Object.keys(burst).map((name) => [name, false])) as unknown as Key;
  return { ...none, return: char === '\r' || char === '\n', tab: char === '\t', backspace: char === '\b', delete: char === '\x7f', shift: char !== char.toLowerCase() };
}

/** Wraps a `useInput` handler so that a burst of plain characters is handled key by key. */
export function perKey(handler: (input: string, key: Key) => void): (input: string, key: Key) => void {
  return (input, key) => {
    const chars = [...input];
    if (chars.length <= 1 || key.ctrl || key.meta || input.startsWith('\x1b')) {
      handler(input, key);
      return;
    }
    for (const char of chars) handler(char, keyOf(char, key));
  };
}
