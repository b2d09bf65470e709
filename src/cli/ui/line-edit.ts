/**
 * The input line of the terminal chat as plain data: the text typed so far and the cursor,
 * changed one keypress (or one pasted chunk) at a time by {@link editLine}.
 *
 * The line is kept in the chat's own state and every keypress is applied to the latest
 * line, not to the one last drawn: a person typing faster than the screen redraws (or a
 * paste followed at once by Enter) loses no key and sends what was typed.
 */
import type { Key } from 'ink';

/** The text being typed and the cursor position in it (0 … value.length). */
export interface LineState {
  readonly value: string;
  readonly cursor: number;
}

/** A line with nothing typed. */
export const EMPTY_LINE: LineState = { value: '', cursor: 0 };

/** What one keypress does: the line after it, and the text sent when the key ended the line. */
export interface LineEdit {
  line: LineState;
  /** Present when the keypress ends the line (Enter, or a paste ending in a newline). */
  submitted?: string;
}

/** The key flags {@link editLine} reads (Ink's `Key`). */
export type LineKey = Pick<Key, 'return' | 'backspace' | 'delete' | 'leftArrow' | 'rightArrow' | 'upArrow' | 'downArrow' | 'home' | 'end' | 'ctrl' | 'meta' | 'tab' | 'escape'>;

/** A line with `text` put in at the cursor. */
function insert(line: LineState, text: string): LineState {
  return { value: line.value.slice(0, line.cursor) + text + line.value.slice(line.cursor), cursor: line.cursor + text.length };
}

/**
 * Applies one keypress to `line`. Enter sends the line, except Alt+Enter and an Enter right
 * after a `\` at the end of the line, which start a new line (the `\` goes); a chunk of
 * text is inserted at the cursor with its line breaks kept, and sends the line when it
 * ends in one (a paste, or text and Enter arriving in one read). Backspace and Delete remove the character before
 * the cursor (terminals disagree on which byte Backspace sends); arrows, Home/End and
 * Ctrl-A/Ctrl-E move the cursor; other control keys change nothing.
 */
export function editLine(line: LineState, input: string, key: LineKey): LineEdit {
  if (key.return) {
    if (key.meta) return { line: insert(line, '\n') };
    const before = line.value.slice(0, line.cursor);
    if (before.endsWith('\\') && (line.cursor === line.value.length || line.value[line.cursor] === '\n')) {
      return { line: { value: `${before.slice(0, -1)}\n${line.value.slice(line.cursor)}`, cursor: line.cursor } };
    }
    return { line: EMPTY_LINE, submitted: line.value };
  }
  if (key.backspace || key.delete) {
    if (line.cursor === 0) return { line };
    return { line: { value: line.value.slice(0, line.cursor - 1) + line.value.slice(line.cursor), cursor: line.cursor - 1 } };
  }
  if (key.leftArrow) return { line: { ...line, cursor: Math.max(0, line.cursor - 1) } };
  if (key.rightArrow) return { line: { ...line, cursor: Math.min(line.value.length, line.cursor + 1) } };
  if (key.home || (key.ctrl && input === 'a')) return { line: { ...line, cursor: 0 } };
  if (key.end || (key.ctrl && input === 'e')) return { line: { ...line, cursor: line.value.length } };
  if (key.ctrl || key.meta || key.tab || key.escape || key.upArrow || key.downArrow || input === '') return { line };
  const text = input.replace(/\r\n?/g, '\n');
  const next = insert(line, text);
  if (!text.endsWith('\n')) return { line: next };
  return { line: EMPTY_LINE, submitted: next.value.replace(/\n+$/, '') };
}
