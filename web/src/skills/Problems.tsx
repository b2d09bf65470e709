/**
 * Skill files that do not load (GET /knowledge/problems): each with its file, the line
 * the problem is on, and the message, so the author can fix it in the editor of their
 * choice. Also a short banner for the catalog when there are any.
 */
import type { SkillProblem } from '../api/types';
import { href } from '../router';
import { Empty, ErrorNote, Skeleton } from '../ui/Notice';
import type { Loaded } from '../ui/useLoad';

/** The problems list. */
export function Problems({ problems }: { problems: Loaded<SkillProblem[]> }) {
  const list = problems.data ?? [];
  return (
    <section className="card" aria-labelledby="problems-title">
      <h2 id="problems-title">Files that could not be loaded</h2>
      <p className="muted small">These files in the skills folder are skipped until they parse. Fix them on disk; the list updates within a second of saving.</p>
      <ErrorNote error={problems.error} />
      {!problems.data && !problems.error ? <Skeleton lines={3} label="Loading the problems" /> : null}
      {problems.data && list.length === 0 ? <Empty>Every skill file loads.</Empty> : null}
      {list.length > 0 ? (
        <ul className="problems">
          {list.map((problem) => (
            <li key={problem.file} className="problem">
              <code className="problem-where">
                skills/{problem.file}
                {problem.line ? `:${problem.line}` : ''}
              </code>
              {problem.line ? <span className="muted small"> line {problem.line}</span> : null}
              <p className="problem-message">{problem.message}</p>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** A one-line warning linking to the problems, shown only when there are some. */
export function ProblemsBanner({ structureId, count }: { structureId: string; count: number }) {
  if (count === 0) return null;
  return (
    <div className="notice notice-warning" role="status">
      <div className="notice-body">
        {count} skill file{count === 1 ? '' : 's'} could not be loaded. <a href={href.skills(structureId, 'problems')}>See what is wrong</a>
      </div>
    </div>
  );
}
