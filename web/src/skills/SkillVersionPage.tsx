/**
 * One version of a skill: View (rendered as a skill page renders it, beside the current
 * version), Compare with the current text (a diff), and Restore (written back as the next
 * version with `If-Match` on the ETag the page read, so a change made meanwhile is
 * refused, not overwritten; the text it replaces becomes a version too). Viewers view and
 * compare; a shared skill of the server is restored by its administrator only.
 */
import { lazy, Suspense, useState } from 'react';
import { ApiError } from '../api/client';
import { useRole, useSession } from '../api/context';
import { href, navigate } from '../router';
import { Confirm } from '../ui/Dialog';
import { formatTime } from '../ui/format';
import { ErrorNote, InfoNote, Skeleton } from '../ui/Notice';
import { useToast } from '../ui/Toasts';
import { useLoad } from '../ui/useLoad';
import type { SkillsApi } from './api';
import { StatusBadge } from './badges';
import { SkillMarkdown } from './Markdown';
import { versionName } from './Versions';

const VersionDiff = lazy(() => import('./VersionDiff'));

/** Props of {@link SkillVersionPage}. */
export interface SkillVersionPageProps {
  structureId: string;
  slug: string;
  version: string;
  /** Open on the comparison rather than the view. */
  compare?: boolean;
  skills: SkillsApi;
  canWrite: boolean;
}

/** True when a failure says the skill changed since the page read it. */
function isStale(error: unknown): boolean {
  return error instanceof ApiError && error.status === 412;
}

/** A version of a skill. */
export function SkillVersionPage({ structureId, slug, version, compare, skills, canWrite }: SkillVersionPageProps) {
  const read = useLoad((signal) => skills.version(slug, version, signal), [skills, slug, version]);
  const current = useLoad((signal) => skills.get(slug, signal), [skills, slug]);
  const role = useRole(structureId);
  const { refreshStructures } = useSession();
  const toast = useToast();
  const [mode, setMode] = useState<'view' | 'compare'>(compare ? 'compare' : 'view');
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>(null);

  if (!read.data) return read.error ? <ErrorNote error={read.error} /> : <Skeleton lines={8} label={`Loading this version of ${slug}`} />;
  const { version: found, text, skill, problem } = read.data;
  const name = versionName(found);
  const same = text === read.data.current.text;
  const shared = current.data !== undefined && current.data.frontmatter.structure_id === undefined;
  const restorable = canWrite && current.data !== undefined && !shared && skill !== undefined && !same;

  const restore = async () => {
    const etag = read.data!.current.etag;
    try {
      await skills.restoreVersion(slug, found.id, etag);
    } catch (failure) {
      setConfirming(false);
      setError(failure);
      // Refused for the role: the page shows the role the server has now.
      if (failure instanceof ApiError && failure.status === 403) void refreshStructures();
      return;
    }
    navigate(href.skill(structureId, slug));
    toast({ tone: 'success', message: `Restored ${slug} to ${name}. The text it replaced is kept as a version too.` });
  };

  return (
    <article className="card skill-version" aria-labelledby="version-title">
      <header className="skill-head">
        <div>
          <h2 id="version-title">
            {String(skill?.frontmatter.name ?? slug)} <span className="muted">· {found.source === 'git' ? <>version <code>{name}</code></> : name}</span>
          </h2>
          <div className="muted small">
            {found.source === 'git' ? `${found.message ?? ''} · ${found.author ?? ''} · ${formatTime(found.date)}` : `The text ${slug} had until an update replaced it, ${formatTime(found.date)}.`}
            {skill ? (
              <>
                {' '}
                · <StatusBadge status={String(skill.frontmatter.status)} />
              </>
            ) : null}
          </div>
        </div>
        <div className="row gap">
          <a className="btn btn-small" href={href.skill(structureId, slug)}>
            Back to the current version
          </a>
          {restorable ? (
            <button type="button" className="btn btn-small btn-primary" onClick={() => setConfirming(true)}>
              Restore this version
            </button>
          ) : null}
        </div>
      </header>
      <div className="editor-tabs" role="group" aria-label="Show">
        <button type="button" className={mode === 'view' ? 'subtab active' : 'subtab'} aria-pressed={mode === 'view'} onClick={() => setMode('view')}>
          View
        </button>
        <button type="button" className={mode === 'compare' ? 'subtab active' : 'subtab'} aria-pressed={mode === 'compare'} onClick={() => setMode('compare')}>
          Compare with current
        </button>
      </div>
      {isStale(error) ? (
        <div className="notice notice-error" role="alert">
          <div className="notice-body">
            <strong>{slug} changed since you opened this version, so nothing was restored.</strong> Compare again with the version it is now, then restore if you still
            want to.
            <div className="notice-actions">
              <button
                type="button"
                className="btn btn-small"
                onClick={() => {
                  setError(null);
                  setMode('compare');
                  void read.reload();
                  void current.reload();
                }}
              >
                Compare with the version it is now
              </button>
            </div>
          </div>
        </div>
      ) : (
        <ErrorNote error={error} onDismiss={() => setError(null)} />
      )}
      {problem ? <InfoNote tone="warning">This version does not read as a skill ({problem}): it can be viewed as text and compared, not restored.</InfoNote> : null}
      {same ? <InfoNote>This version is the same as the current one.</InfoNote> : null}
      {role !== undefined && !canWrite ? (
        <InfoNote>Your role in this workspace is {role}: you can view and compare versions; restoring one needs the operator or owner role.</InfoNote>
      ) : null}
      {canWrite && shared ? <InfoNote>A shared skill of this server: only the server’s administrator restores its versions. Fork it to change this workspace’s own copy.</InfoNote> : null}
      {mode === 'view' ? (
        <div className="version-columns">
          <section aria-labelledby="version-this">
            <h3 id="version-this">This version</h3>
            {skill ? (
              <>
                {skill.frontmatter.summary ? <p className="muted">{String(skill.frontmatter.summary)}</p> : null}
                <SkillMarkdown body={skill.body} />
              </>
            ) : (
              <pre className="version-text" tabIndex={0} aria-label="The file of this version">
                {text}
              </pre>
            )}
          </section>
          <section aria-labelledby="version-current">
            <h3 id="version-current">The current version</h3>
            {current.data ? (
              <>
                {current.data.frontmatter.summary ? <p className="muted">{String(current.data.frontmatter.summary)}</p> : null}
                <SkillMarkdown body={current.data.body} />
              </>
            ) : current.error ? (
              <ErrorNote error={current.error} />
            ) : (
              <Skeleton lines={6} label={`Loading the current version of ${slug}`} />
            )}
          </section>
        </div>
      ) : (
        <Suspense fallback={<Skeleton lines={6} label="Loading the comparison" />}>
          <VersionDiff before={text} after={read.data.current.text} beforeLabel={found.source === 'git' ? `version ${name}` : name} afterLabel="the current version" />
        </Suspense>
      )}
      {confirming ? (
        <Confirm
          title={`Restore ${slug} to ${name}?`}
          message={<p>This version becomes the current one. The text it replaces is kept as a version, so you can go back to it.</p>}
          confirmLabel="Restore this version"
          onClose={() => setConfirming(false)}
          onConfirm={restore}
        />
      ) : null}
    </article>
  );
}
