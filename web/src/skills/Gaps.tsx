/**
 * "What to teach next": the skill gap report (GET /api/org/knowledge/gaps): chat requests
 * of this workspace that matched no skill, or only weakly, grouped by what they share,
 * most frequent first, each with its examples, what search came closest to, and "Start
 * a skill from this request" (the editor, with the request as the skill's first trigger).
 */
import type { SkillGap } from '../api/types';
import { href } from '../router';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote, Skeleton } from '../ui/Notice';
import type { Loaded } from '../ui/useLoad';

/** The gap report. */
export function Gaps({ structureId, gaps, canWrite }: { structureId: string; gaps: Loaded<SkillGap[]>; canWrite: boolean }) {
  const list = gaps.data ?? [];
  return (
    <section className="card" aria-labelledby="gaps-title">
      <h2 id="gaps-title">What to teach next</h2>
      <p className="muted small">Requests people sent to this workspace’s nodes that no complete skill answered well, most frequent first. A skill written for them is found the next time.</p>
      <ErrorNote error={gaps.error} />
      {!gaps.data && !gaps.error ? <Skeleton lines={4} label="Loading the gap report" /> : null}
      {gaps.data && list.length === 0 ? <Empty>No gaps: every recent request matched a skill well.</Empty> : null}
      <ol className="gaps">
        {list.map((gap) => (
          <li key={gap.key} className="gap-card">
            <div className="gap-head">
              <strong>“{gap.example}”</strong>
              <span className="muted small">
                {gap.count} request{gap.count === 1 ? '' : 's'} · {gap.outcome === 'none' ? 'no skill matched' : 'only weak matches'} · last {formatTime(gap.last_seen)}
              </span>
            </div>
            {gap.messages.length > 1 ? (
              <ul className="gap-messages small">
                {gap.messages.slice(1).map((message) => (
                  <li key={message}>“{message}”</li>
                ))}
              </ul>
            ) : null}
            {gap.candidates.length > 0 ? (
              <p className="small muted">
                Closest: {gap.candidates.map((candidate, index) => (
                  <span key={candidate.slug}>
                    {index > 0 ? ', ' : ''}
                    <a href={href.skill(structureId, candidate.slug)}>{candidate.slug}</a>
                  </span>
                ))}
              </p>
            ) : null}
            {canWrite ? (
              <a className="btn btn-small" href={`${href.skills(structureId, 'new')}?from=${encodeURIComponent(gap.example)}`}>
                Start a skill from this request
              </a>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
