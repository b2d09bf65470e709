/** Printed commands survive a shell: each quoted word reads back as itself. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, quoteArg } from './quote.js';

describe('quoteArg', () => {
  it('leaves plain words alone and quotes the rest', () => {
    expect(quoteArg('exec-ceo')).toBe('exec-ceo');
    expect(quoteArg('http://127.0.0.1:4780')).toBe('http://127.0.0.1:4780');
    expect(quoteArg('Blank one')).toBe(`'Blank one'`);
    expect(quoteArg('')).toBe(`''`);
    expect(commandLine('org', 'agents', 'add', 'team-lead', '-s', 'Blank one')).toBe(`org agents add team-lead -s 'Blank one'`);
  });

  it('round-trips through sh for awkward values', () => {
    const values = ['Blank one', "it's", 'a"b', '$HOME', '`id`', 'x\ny', '*', 'back\\slash', '--flag', ''];
    const script = `for a in ${values.map(quoteArg).join(' ')}; do printf '%s\\0' "$a"; done`;
    const printed = execFileSync('sh', ['-c', script], { encoding: 'utf8' }).split('\0').slice(0, -1);
    expect(printed).toEqual(values);
  });
});
