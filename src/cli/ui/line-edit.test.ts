import { describe, expect, it } from 'vitest';
import { EMPTY_LINE, editLine, type LineKey, type LineState } from './line-edit.js';

const NONE: LineKey = { return: false, backspace: false, delete: false, leftArrow: false, rightArrow: false, upArrow: false, downArrow: false, home: false, end: false, ctrl: false, meta: false, tab: false, escape: false };

/** Applies keypresses in order, collecting what was sent. */
function typeKeys(keys: (string | Partial<LineKey> | [string, Partial<LineKey>])[], start: LineState = EMPTY_LINE) {
  let line = start;
  const sent: string[] = [];
  for (const key of keys) {
    const [input, flags] = typeof key === 'string' ? [key, {}] : Array.isArray(key) ? key : ['', key];
    const edit = editLine(line, input, { ...NONE, ...flags });
    line = edit.line;
    if (edit.submitted !== undefined) sent.push(edit.submitted);
  }
  return { line, sent };
}

describe('editLine', () => {
  it('inserts at the cursor, moves it, and deletes before it', () => {
    const { line } = typeKeys(['helo', { leftArrow: true }, 'l', { end: true }, ' world', { home: true }, { rightArrow: true }, { backspace: true }, 'H']);
    expect(line).toEqual({ value: 'Hello world', cursor: 1 });
  });

  it('sends the line on Enter and starts an empty one', () => {
    const { line, sent } = typeKeys(['first', { return: true }, 'second', { return: true }]);
    expect(sent).toEqual(['first', 'second']);
    expect(line).toEqual(EMPTY_LINE);
  });

  it('starts a new line on Alt+Enter, or on Enter after a trailing backslash (which goes), and sends on a plain Enter', () => {
    const { line, sent } = typeKeys(['/teach plan an offsite', { return: true, meta: true }, 'Book a venue\\', { return: true }, 'Send the agenda']);
    expect(sent).toEqual([]);
    expect(line).toEqual({ value: '/teach plan an offsite\nBook a venue\nSend the agenda', cursor: 51 });
    expect(typeKeys([{ return: true }], line).sent).toEqual(['/teach plan an offsite\nBook a venue\nSend the agenda']);
    // A backslash inside the text is text.
    expect(typeKeys(['a\\b', { leftArrow: true }, { return: true }]).sent).toEqual(['a\\b']);
  });

  it('sends a chunk that ends in a line break, keeping the breaks inside it', () => {
    const { line, sent } = typeKeys(['one\r\ntwo\r']);
    expect(sent).toEqual(['one\ntwo']);
    expect(line).toEqual(EMPTY_LINE);
  });

  it('keeps the cursor inside the line and ignores control keys', () => {
    const { line } = typeKeys([{ leftArrow: true }, { backspace: true }, 'ab', { rightArrow: true }, ['x', { ctrl: true }], { upArrow: true }, { tab: true }, ['a', { ctrl: true }], { delete: true }, ['e', { ctrl: true }]]);
    expect(line).toEqual({ value: 'ab', cursor: 2 });
  });
});
