/**
 * A light English stemmer that removes inflection only: plurals (-s, -es, -ies), past
 * and progressive forms (-ed, -ing, with doubled consonants undone) and a final silent
 * "e", so "invoice", "invoices", "invoiced" and "invoicing" all meet at `invoic`, and
 * "hire", "hired", "hiring" at `hir`. Unlike Porter's stemmer it leaves derivation
 * alone: "receivable" is not "received", "designer" is not "design", "collections" is
 * not "collect". Those relatives are found at query time instead, with a lower weight
 * (see `query.ts`), so a word as it was meant outranks its cousins.
 */

/** Words the suffix rules would break. */
const KEEP = new Set([
  'news', 'series', 'species', 'analysis', 'basis', 'crisis', 'thesis', 'diagnosis', 'status', 'bus', 'campus', 'bonus',
  'census', 'virus', 'focus', 'process', 'access', 'business', 'address', 'success', 'less', 'loss', 'class', 'gas',
  'canvas', 'alias', 'atlas', 'chaos', 'ethos', 'lens', 'yes', 'this', 'its', 'was', 'has', 'is', 'us', 'ops', 'sales',
  'always', 'perhaps', 'thing', 'nothing', 'something', 'anything', 'everything', 'morning', 'evening', 'ceiling',
  'bring', 'spring', 'string', 'king', 'ring', 'sing', 'wing', 'swing', 'during', 'bed', 'red', 'need', 'seed', 'feed',
  'speed', 'shed', 'hundred', 'sacred', 'naked', 'wicked',
]);

const VOWEL = /[aeiouy]/;
const DOUBLE = /([bdfgkmnprt])\1$/;

/** The light stem of a lowercase word. */
export function lightStem(word: string): string {
  if (word.length <= 3 || KEEP.has(word) || /\d/.test(word)) return dropE(word);
  let stem = word;
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (/(ss|sh|ch|x|zz)es$/.test(stem)) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !/(ss|us|is|ous)$/.test(stem)) stem = stem.slice(0, -1);
  else if (stem.endsWith('ied') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('ed') && VOWEL.test(stem.slice(0, -2))) stem = undouble(stem.slice(0, -2));
  else if (stem.endsWith('ing') && stem.length > 5 && VOWEL.test(stem.slice(0, -3))) stem = undouble(stem.slice(0, -3));
  return dropE(stem);
}

/** `planned` → `plann` → `plan`; `filled` keeps its double l (no rule for l and s). */
function undouble(stem: string): string {
  return DOUBLE.test(stem) ? stem.slice(0, -1) : stem;
}

/** `invoice` and `invoic(ing)` meet without a dictionary: drop a final e after a consonant. */
function dropE(stem: string): string {
  return stem.length >= 3 && stem.endsWith('e') && !/[aeiou]e$/.test(stem) ? stem.slice(0, -1) : stem;
}
