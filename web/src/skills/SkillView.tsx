/** A skill page: front matter, steps, the rendered body, its versions, and its actions. */
import { useState } from 'react';
import type { Skill } from '../api/types';
import { href, navigate } from '../router';
import { Confirm } from '../ui/Dialog';
import { formatTime } from '../ui/format';
import { ErrorNote, InfoNote, Skeleton } from '../ui/Notice';
import { useToast } from '../ui/Toasts';
import { useLoad } from '../ui/useLoad';
import { approve, type SkillsApi } from './api';
import { StatusBadge } from './badges';
import { SkillMarkdown, stepAnchor } from './Markdown';
import { Versions } from './Versions';

/** Shows one skill. */
export function SkillView({ structureId, slug, skills, canWrite }: { structureId: string; slug: string; skills: SkillsApi; canWrite: boolean }) {
  const skill = useLoad((signal) => skills.get(slug, signal), [skills, slug]);
  const [confirming, setConfirming] = useState(false);
  const toast = useToast();
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);

  if (!skill.data) return skill.error ? <ErrorNote error={skill.error} /> : <Skeleton lines={8} label={`Loading ${slug}`} />;
  const data: Skill = skill.data;
  const fm = data.frontmatter;
  const status = String(fm.status ?? '');
  // An instance skill is shared by every structure: a structure changes its own fork of it.
  const shared = fm.structure_id === undefined;
  const fork = async () => {
    setError(null);
    try {
      skill.setData(await skills.fork(slug));
      setNotice(`Forked: ${slug} is now this structure’s own copy, which you can change.`);
    } catch (failure) {
      setError(failure);
    }
  };
  const setStatus = async (next: string) => {
    setError(null);
    try {
      skill.setData(next === 'complete' ? await approve(skills, slug) : await skills.save(slug, { ...fm, status: next }, data.body));
      setNotice(`Status set to ${next}.`);
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <div className="skill-layout">
      <article className="card skill-main">
        <header className="skill-head">
          <div>
            <h2>{String(fm.name ?? slug)}</h2>
            <div className="muted small">
              <code>{slug}</code> · <StatusBadge status={status} />
              {fm.summary ? ` · ${String(fm.summary)}` : ''}
            </div>
          </div>
          {canWrite && shared ? (
            <div className="row gap">
              <button type="button" className="btn btn-small btn-primary" onClick={() => void fork()}>
                Fork to change
              </button>
            </div>
          ) : null}
          {canWrite && !shared ? (
            <div className="row gap">
              {status === 'draft' ? (
                <button type="button" className="btn btn-small btn-primary" onClick={() => void setStatus('complete')}>
                  Approve
                </button>
              ) : null}
              {status === 'complete' ? (
                <button type="button" className="btn btn-small" onClick={() => void setStatus('deprecated')}>
                  Deprecate
                </button>
              ) : null}
              <a className="btn btn-small" href={href.skill(structureId, slug, true)}>
                Edit
              </a>
              <button type="button" className="btn btn-small btn-danger-outline" onClick={() => setConfirming(true)}>
                Delete
              </button>
            </div>
          ) : null}
        </header>
        <ErrorNote error={error} />
        {notice ? <InfoNote tone="success">{notice}</InfoNote> : null}
        {shared ? <p className="muted small">A shared skill of this server: every structure uses it, and only the server’s administrator changes it. Fork it to get this structure’s own copy to change.</p> : null}
        <SkillMarkdown body={data.body} />
      </article>
      <aside className="skill-aside">
        <section className="card">
          <h3>Steps</h3>
          {data.steps.length === 0 ? (
            <p className="muted small">No step sections (headings like “## [id] Step 1: Title”).</p>
          ) : (
            <ol className="steps">
              {data.steps.map((step) => (
                <li key={step.id}>
                  <button type="button" className="btn-link" onClick={() => document.getElementById(stepAnchor(step.id))?.scrollIntoView({ behavior: 'smooth' })}>
                    {step.title}
                  </button>{' '}
                  <code className="muted">{step.id}</code>
                </li>
              ))}
            </ol>
          )}
        </section>
        <section className="card">
          <h3>Front matter</h3>
          <dl className="kv">
            {Object.entries(fm).map(([name, value]) => (
              <div key={name} className="kv-row">
                <dt>{name}</dt>
                <dd>{display(name, value)}</dd>
              </div>
            ))}
          </dl>
        </section>
        <Versions structureId={structureId} slug={slug} skills={skills} />
      </aside>
      {confirming ? (
        <Confirm
          title={`Delete ${slug}?`}
          message={<p>The file moves to the deleted area of the library; you can undo this right after, or restore it later from the Deleted tab.</p>}
          confirmLabel="Delete skill"
          danger
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            await skills.remove(slug);
            navigate(href.skills(structureId));
            toast({
              tone: 'success',
              message: `Deleted ${String(fm.name ?? slug)}.`,
              action: {
                label: 'Undo',
                run: async () => {
                  await skills.restore(slug);
                  navigate(href.skill(structureId, slug));
                },
              },
            });
          }}
        />
      ) : null}
    </div>
  );
}

function display(name: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.length ? value.join(', ') : '—';
  if (name === 'learned_at' && typeof value === 'string') return formatTime(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
