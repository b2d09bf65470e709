/** Deleted skills with restore (409 when a live skill has the slug). */
import { useState } from 'react';
import { href } from '../router';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote, InfoNote } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';
import type { SkillsApi } from './api';

/** The deleted area of the library. */
export function DeletedSkills({ structureId, skills, canWrite }: { structureId: string; skills: SkillsApi; canWrite: boolean }) {
  const deleted = useLoad((signal) => skills.deleted(signal), [skills]);
  const [error, setError] = useState<unknown>(null);
  const [restored, setRestored] = useState<string | null>(null);
  const restore = async (slug: string) => {
    setError(null);
    setRestored(null);
    try {
      await skills.restore(slug);
      setRestored(slug);
      await deleted.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const list = deleted.data ?? [];
  return (
    <section className="card">
      <h2>Deleted skills</h2>
      <ErrorNote error={deleted.error ?? error} onDismiss={() => setError(null)} />
      {restored ? (
        <InfoNote tone="success">
          Restored <a href={href.skill(structureId, restored)}>{restored}</a>.
        </InfoNote>
      ) : null}
      {deleted.data && list.length === 0 ? <Empty>Nothing was deleted.</Empty> : null}
      {list.length > 0 ? (
        <table className="table table-dense">
          <thead>
            <tr>
              <th>Name</th>
              <th>Slug</th>
              <th>Deleted</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((skill) => (
              <tr key={`${skill.slug}:${skill.deleted_at}`}>
                <td>{skill.name}</td>
                <td>
                  <code>{skill.slug}</code>
                </td>
                <td className="muted">{formatTime(skill.deleted_at)}</td>
                <td className="actions">
                  {canWrite ? (
                    <button type="button" className="btn btn-small" onClick={() => void restore(skill.slug)}>
                      Restore
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
