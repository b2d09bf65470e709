/**
 * The search tester: what an agent of this workspace would match, with score and
 * reason. Scores look exactly as they do in a chat turn's "Skills matched" (one scale).
 */
import { useState } from 'react';
import type { SearchMatch } from '../api/types';
import { href } from '../router';
import { Empty, ErrorNote } from '../ui/Notice';
import { Score } from '../ui/Score';
import type { SkillsApi } from './api';

/** Runs searches the way the chat enrichment does. */
export function SearchTester({ structureId, skills }: { structureId: string; skills: SkillsApi }) {
  const [query, setQuery] = useState('');
  const [limit, setLimit] = useState(5);
  const [matches, setMatches] = useState<SearchMatch[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setMatches(await skills.search(query.trim(), limit));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const best = Math.max(0, ...(matches ?? []).map((match) => match.score));
  return (
    <section className="card">
      <h2>Search tester</h2>
      <p className="muted small">Only complete skills visible to this workspace are matched — exactly what an agent sees when a message arrives.</p>
      <form
        className="row gap search-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (query.trim()) void run();
        }}
      >
        <label className="field grow">
          <span>Message</span>
          <input type="search" name="query" maxLength={1000} placeholder="e.g. customers are late paying invoices" value={query} onChange={(event) => setQuery(event.target.value)} />
        </label>
        <label className="field field-narrow">
          <span>Limit</span>
          <input type="number" name="limit" min={1} max={50} value={limit} onChange={(event) => setLimit(Number(event.target.value))} />
        </label>
        <button type="submit" className="btn btn-primary" disabled={busy || !query.trim()}>
          {busy ? 'Searching…' : 'Search'}
        </button>
      </form>
      <ErrorNote error={error} labels={{ query: 'Message', limit: 'Limit' }} />
      {matches && matches.length === 0 ? <Empty>No complete skill matches; an agent would work without one (and may learn a draft).</Empty> : null}
      {matches && matches.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th className="col-optional">#</th>
              <th>Skill</th>
              <th className="num">Score</th>
              <th className="col-optional">Reason</th>
            </tr>
          </thead>
          <tbody>
            {matches.map((match, index) => (
              <tr key={match.slug}>
                <td className="muted col-optional">{index + 1}</td>
                <td>
                  <a href={href.skill(structureId, match.slug)}>{match.slug}</a>
                </td>
                <td className="num">
                  <Score value={match.score} best={best} />
                </td>
                <td className="reason col-optional">{match.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
