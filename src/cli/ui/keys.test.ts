/** A burst of plain characters reaches a single-key handler one key at a time; anything else passes through whole. */
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { perKey } from './keys.js';

const NO_KEY = { upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false, super: false, hyper: false, capsLock: false, numLock: false } as Key;

describe('perKey', () => {
  const seen = (input: string, key: Partial<Key> = {}) => {
    const calls: [string, boolean][] = [];
    perKey((char, flags) => calls.push([char, flags.return]))(input, { ...NO_KEY, ...key });
    return calls;
  };

  it('splits a burst of plain characters, Enter included', () => {
    expect(seen('ja')).toEqual([['j', false], ['a', false]]);
    expect(seen('jj\r')).toEqual([['j', false], ['j', false], ['\r', true]]);
  });

  it('passes one key, control keys and escape sequences through unchanged', () => {
    expect(seen('a')).toEqual([['a', false]]);
    expect(seen('c', { ctrl: true })).toEqual([['c', false]]);
    expect(seen('\x1b[B')).toEqual([['\x1b[B', false]]);
    expect(seen('', { return: true })).toEqual([['', true]]);
  });
});
