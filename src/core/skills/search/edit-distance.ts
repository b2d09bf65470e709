/**
 * Optimal-string-alignment distance (Levenshtein plus the swap of two neighbours, so
 * "incidnet" is one edit from "incident"), computed with two reusable rows and an early
 * exit once every cell exceeds `max`: typo lookup compares a word against thousands of
 * lexicon words per query, so most comparisons must stop after a few characters.
 */

let prev2 = new Int32Array(64);
let prev = new Int32Array(64);
let row = new Int32Array(64);

/** The OSA distance of `a` and `b`, or `max + 1` as soon as it is certain to exceed `max`. */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  if (row.length <= n) {
    prev2 = new Int32Array(n + 1);
    prev = new Int32Array(n + 1);
    row = new Int32Array(n + 1);
  }
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let best = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const cb = b.charCodeAt(j - 1);
      let value = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        value = Math.min(value, (prev2[j - 2] as number) + 1);
      }
      row[j] = value;
      if (value < best) best = value;
    }
    if (best > max) return max + 1;
    const spare = prev2;
    prev2 = prev;
    prev = row;
    row = spare;
  }
  return prev[n] as number;
}
