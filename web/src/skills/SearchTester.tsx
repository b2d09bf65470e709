/**
 * The search tester: what an agent of this structure would match, with score and
 * reason (scores look exactly as they do in a chat turn's "Skills matched": one scale),
 * and with "Explain" every candidate the search weighed (the best ones under the floor
 * too) with why it was kept or cut. "Why not" names a skill to explain whatever its rank:
 * the answer to "why didn't this skill match?".
 */
import { useState } from 'react';
import type { ExplainedCandidate, SearchExplanation, SearchMatch } from '../api/types';
import { href } from '../router';
import { Empty, ErrorNote } from '../ui/Notice';
import { Score } from '../ui/Score';
import type { SkillsApi } from './api';

/** Runs searches the way the chat enrichment does. */
export function SearchTester({ structureId, skills }: { structureId: string; skills: SkillsApi }) {
  const [query, setQuery] = useState('');
  const [limit, setLimit] = useState(5);
  const [whyNot, setWhyNot] = useState('');
  const [explain, setExplain] = useState(false);
  const [matches, setMatches] = useState<SearchMatch[] | null>(null);
  const [explanation, setExplanation] = useState<SearchExplanation | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const slug = whyNot.trim();
      if (explain || slug) {
        const result = await skills.explain(query.trim(), limit, slug ? [slug] : []);
        setMatches(result.matches);
        setExplanation(result.explain);
      } else {
        setMatches(await skills.search(query.trim(), limit));
        setExplanation(null);
      }
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
        className="row gap wrap search-form"
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
        <label className="field">
          <span>Why didn’t this skill match? (its slug, optional)</span>
          <input name="why" pattern="[a-z0-9]+(-[a-z0-9]+)*" maxLength={64} placeholder="pay-supplier-invoices" value={whyNot} onChange={(event) => setWhyNot(event.target.value)} />
        </label>
        <label className="check search-explain">
          <input type="checkbox" name="explain" checked={explain} onChange={(event) => setExplain(event.target.checked)} />
          Explain every candidate, kept or cut
        </label>
        <button type="submit" className="btn btn-primary" disabled={busy || !query.trim()}>
          {busy ? 'Searching…' : 'Search'}
        </button>
      </form>
      <ErrorNote error={error} labels={{ query: 'Message', limit: 'Limit' }} />
      {matches && matches.length > 0 ? (
        <p className="hint">
          The score says how well the message’s words meet the skill’s name, triggers, tags, summary and steps (its triggers count most); the best match ranks first, and
          each bar compares a skill with it. The reason names the words that matched, field by field.
        </p>
      ) : null}
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
      {explanation ? <Explanation structureId={structureId} explanation={explanation} /> : null}
    </section>
  );
}

/** How the query was read and every candidate's fate. */
function Explanation({ structureId, explanation }: { structureId: string; explanation: SearchExplanation }) {
  return (
    <div className="explain" aria-label="Explanation">
      <h3>How the message was read</h3>
      <ul className="small">
        {explanation.words.map((word) => (
          <li key={word.word}>
            <strong>{word.word}</strong> (weight {word.weight.toFixed(2)}):{' '}
            {word.matched_as.length === 0 ? 'no skill has it' : word.matched_as.map((m) => (m.via && m.via !== word.word ? `${m.via} (${m.kind})` : m.kind)).join(', ')}
          </li>
        ))}
      </ul>
      <h3>Candidates</h3>
      <table className="table">
        <thead>
          <tr>
            <th>Skill</th>
            <th>Kept</th>
            <th>Why</th>
            <th>Matched</th>
          </tr>
        </thead>
        <tbody>
          {explanation.candidates.map((candidate) => (
            <tr key={candidate.slug}>
              <td>
                <a href={href.skill(structureId, candidate.slug)}>{candidate.slug}</a>
              </td>
              <td>{candidate.kept ? `#${candidate.rank ?? ''}` : 'cut'}</td>
              <td className="reason">{candidate.why}</td>
              <td className="reason">{fieldsOf(candidate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The matched words per field, as "name: pay, invoices; body: supplier". */
function fieldsOf(candidate: ExplainedCandidate): string {
  const parts = Object.entries(candidate.fields)
    .filter(([, words]) => words && words.length > 0)
    .map(([field, words]) => `${field}: ${(words ?? []).join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : candidate.reason;
}
