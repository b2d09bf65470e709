/**
 * The Versions panel of a skill page: its versions newest first (git commits of its file,
 * and the texts updates through org replaced that git does not hold), each opening on
 * View or Compare. Says what the list is made of when the library is not in git.
 */
import { href } from '../router';
import { formatTime } from '../ui/format';
import { ErrorNote, Skeleton } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';
import type { SkillsApi } from './api';

/** How a version is named on the pages: a commit by its first 8 digits, a kept copy by when it was replaced. */
export function versionName(version: { id: string; source: string; date: string }): string {
  return version.source === 'git' ? version.id.slice(0, 8) : `the text before ${formatTime(version.date)}`;
}

/** The versions of one skill. */
export function Versions({ structureId, slug, skills }: { structureId: string; slug: string; skills: SkillsApi }) {
  const versions = useLoad((signal) => skills.versions(slug, signal), [skills, slug]);
  const list = versions.data?.versions ?? [];
  return (
    <section className="card" aria-labelledby="versions-title">
      <h3 id="versions-title">Versions</h3>
      <ErrorNote error={versions.error} />
      {!versions.data && !versions.error ? <Skeleton lines={3} label="Loading the versions" /> : null}
      {versions.data && !versions.data.git ? (
        <p className="muted small">
          This library is not in a git repository: its versions are the texts that updates made through org replaced (kept in the deleted area).
        </p>
      ) : null}
      {versions.data && list.length === 0 ? (
        <p className="muted small">{versions.data.git ? 'No earlier versions: the file has no commits yet, and no update has replaced it.' : 'No earlier versions yet: the first update keeps the text it replaces.'}</p>
      ) : null}
      {list.length > 0 ? (
        <ol className="versions">
          {list.map((version) => (
            <li key={version.id} className="version">
              <div>
                <a href={href.version(structureId, slug, version.id)}>{version.source === 'git' ? <code>{versionName(version)}</code> : 'Before an update'}</a>{' '}
                {version.source === 'git' ? version.message : null}
              </div>
              <div className="muted small">
                {version.source === 'git' ? `${version.author ?? ''} · ${formatTime(version.date)}` : `replaced ${formatTime(version.date)}`} ·{' '}
                <a href={href.version(structureId, slug, version.id, true)} aria-label={`Compare ${versionName(version)} with the current version`}>
                  Compare
                </a>
              </div>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
