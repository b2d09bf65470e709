/**
 * Words a query negates: "customer left and did **not renew**", "a client still
 * **hasn't paid** us", "a contract we **won't renew**". A skill named for the negated
 * action ("Renew a customer contract") is the opposite of the request, so ranking treats
 * the negated word like an antonym of the query: a contrast that lowers a skill whose
 * name holds it. Only the word right after the negation counts (auxiliaries skipped:
 * "never **done** a structured interview" negates nothing a skill is named for).
 */
import { splitWords, stemOf } from './analysis.js';

/**
 * Negating tokens as `splitWords` yields them: contractions lose their apostrophe
 * suffix ("didn't" → "didn", "won't" → "won", "can't" → "can" is ambiguous and left out).
 */
const NEGATORS: ReadonlySet<string> = new Set([
  'not', 'never', 'no', 'without', 'cannot', 'cant', 'didn', 'doesn', 'don', 'isn', 'aren', 'wasn', 'weren',
  'won', 'wouldn', 'shouldn', 'couldn', 'hasn', 'haven', 'hadn', 'mustn', 'needn',
]);

/** Words between a negation and the word it negates ("did not **even** renew", "no **longer** wants"). */
const SKIPPED: ReadonlySet<string> = new Set([
  'be', 'been', 'being', 'have', 'has', 'had', 'do', 'does', 'did', 'done', 'doing', 'get', 'got', 'even', 'yet', 'longer', 'ever', 'really', 'actually', 'still', 'any',
]);

/** The stems of the content words `query` negates, in order. */
export function negatedStems(query: string): string[] {
  const tokens = splitWords(query);
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!NEGATORS.has(tokens[i] as string)) continue;
    let j = i + 1;
    while (j < tokens.length && SKIPPED.has(tokens[j] as string)) j++;
    const next = tokens[j];
    if (next === undefined || NEGATORS.has(next)) continue;
    const stem = stemOf(next);
    if (stem !== null) out.push(stem);
  }
  return out;
}
