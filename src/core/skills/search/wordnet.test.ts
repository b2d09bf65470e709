import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWordNet, openSenseIndex, wordnetDictDir, type Sense } from './wordnet.js';

/** The senses of `word` found by reading every line: what the in-place search must return. */
function scan(lines: string[], word: string): Sense[] {
  const prefix = `${word}%`;
  return lines
    .filter((line) => line.startsWith(prefix))
    .map((line) => {
      const [key, offset, , tagged] = line.split(' ');
      return { type: key?.charAt(prefix.length) ?? '', offset: Number(offset), tagged: Number(tagged) || 0 };
    });
}

describe('the WordNet sense index, searched in place', () => {
  const file = join(wordnetDictDir(), 'index.sense');
  const lines = readFileSync(file, 'latin1').split('\n').filter(Boolean);

  it('finds exactly the senses a full read finds, for words across the file, the first and last ones, and absent words', () => {
    const lemmas = new Set<string>();
    for (let i = 0; i < lines.length; i += 997) lemmas.add((lines[i] as string).split('%')[0] as string);
    lemmas.add((lines[0] as string).split('%')[0] as string);
    lemmas.add((lines[lines.length - 1] as string).split('%')[0] as string);
    const words = [...lemmas, 'fire', 'site', 'website', 'invoice', 'zzzzzz', 'aaaa', 'qwertyuiop', 'a', 'run'];
    const index = openSenseIndex(file);
    try {
      let found = 0;
      for (const word of words) {
        const expected = scan(lines, word);
        expect(index.senses(word), word).toEqual(expected);
        found += expected.length;
      }
      // Not vacuous: most of the sampled words have senses.
      expect(found).toBeGreaterThan(lemmas.size);
      expect(index.senses('zzzzzz')).toEqual([]);
    } finally {
      index.close();
    }
  });

  it('handles lines longer than one probe and a last line without a newline', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'org-wordnet-'));
    try {
      const long = `b${'x'.repeat(2000)}`;
      // Sorted, as WordNet's index is; the long line spans several probes.
      const content = ['alpha%1:01:00:: 00000001 1 3', 'beta%1:02:00:: 00000003 1 7', 'beta%2:03:00:: 00000004 2 0', `${long}%2:01:00:: 00000002 1 0`, 'gamma%3:01:00:: 00000005 1 1'].join('\n');
      await writeFile(join(dir, 'index.sense'), content);
      const index = openSenseIndex(join(dir, 'index.sense'));
      expect(index.senses('alpha')).toEqual([{ type: '1', offset: 1, tagged: 3 }]);
      expect(index.senses(long)).toEqual([{ type: '2', offset: 2, tagged: 0 }]);
      expect(index.senses('beta')).toEqual([
        { type: '1', offset: 3, tagged: 7 },
        { type: '2', offset: 4, tagged: 0 },
      ]);
      expect(index.senses('gamma')).toEqual([{ type: '3', offset: 5, tagged: 1 }]);
      expect(index.senses('delta')).toEqual([]);
      index.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('weighs synonyms by tagged sense as before: "website" → "site", "fire" → "dismiss" lighter', () => {
    const wordnet = createWordNet();
    try {
      expect(wordnet.synonyms('website').map((s) => s.word)).toContain('site');
      const fire = wordnet.synonyms('fire');
      expect(fire.length).toBeGreaterThan(0);
      expect(wordnet.knows?.('invoices')).toBe(true);
      expect(wordnet.knows?.('qwxzv')).toBe(false);
    } finally {
      wordnet.close();
    }
  });
});
