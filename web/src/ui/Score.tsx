/**
 * A search score, shown the same way wherever one appears (the search tester, the skills
 * a chat turn matched): the score the search returned, with two decimals, and a bar
 * sized against the best score of the same list. One scale, one look.
 */

/** Formats a score for display. */
export function formatScore(score: number): string {
  return score.toFixed(2);
}

/** A score with its bar. */
export function Score({ value, best }: { value: number; best: number }) {
  const width = best > 0 ? Math.max(4, Math.min(100, (value / best) * 100)) : 4;
  return (
    <span className="score">
      <span className="score-bar" style={{ width: `${width}%` }} aria-hidden="true" />
      {formatScore(value)}
    </span>
  );
}
