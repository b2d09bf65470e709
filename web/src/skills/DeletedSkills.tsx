/**
 * The deleted area of the library: skills deleted through the API, with restore (the
 * newest deleted version of a slug comes back; 409 while a live skill has it), and the
 * earlier versions that updates replaced, kept in `skills/.deleted/` so no save ever
 * loses text.
 */
import { useState } from 'react';
import type { DeletedSkill } from '../api/types';
import { href } from '../router';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote, InfoNote, Skeleton } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';
import type { SkillsApi } from './api';

/** The deleted area. */
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
  const removed = list.filter((skill) => skill.reason !== 'replaced');
  const replaced = list.filter((skill) => skill.reason === 'replaced');
  return (
    <section className="card">
      <h2>Deleted skills</h2>
      <ErrorNote error={deleted.error ?? error} onDismiss={() => setError(null)} />
      {restored ? (
        <InfoNote tone="success">
          Restored <a href={href.skill(structureId, restored)}>{restored}</a>.
        </InfoNote>
      ) : null}
      {!deleted.data && !deleted.error ? <Skeleton lines={3} label="Loading deleted skills" /> : null}
      {deleted.data && removed.length === 0 ? <Empty>Nothing was deleted.</Empty> : null}
      {removed.length > 0 ? <DeletedTable list={removed} canWrite={canWrite} onRestore={(slug) => void restore(slug)} /> : null}
      {replaced.length > 0 ? (
        <details className="replaced">
          <summary>
            Earlier versions kept from updates <span className="count">{replaced.length}</span>
          </summary>
          <p className="muted small">
            Each save keeps the text it replaced in <code>skills/.deleted/</code> (files ending in <code>.replaced.md</code>), so an overwritten skill can always be recovered.
          </p>
          <DeletedTable list={replaced} canWrite={false} onRestore={() => undefined} />
        </details>
      ) : null}
    </section>
  );
}

function DeletedTable({ list, canWrite, onRestore }: { list: DeletedSkill[]; canWrite: boolean; onRestore: (slug: string) => void }) {
  return (
    <table className="table table-dense">
      <thead>
        <tr>
          <th>Name</th>
          <th className="col-optional">Slug</th>
          <th>{list[0]?.reason === 'replaced' ? 'Replaced' : 'Deleted'}</th>
          {canWrite ? (
            <th>
              <span className="sr-only">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {list.map((skill) => (
          <tr key={`${skill.slug}:${skill.deleted_at}:${skill.reason}`}>
            <td>{skill.name}</td>
            <td className="col-optional">
              <code>{skill.slug}</code>
            </td>
            <td className="muted">{formatTime(skill.deleted_at)}</td>
            {canWrite ? (
              <td className="actions">
                <button type="button" className="btn btn-small" aria-label={`Restore ${skill.name}`} onClick={() => onRestore(skill.slug)}>
                  Restore
                </button>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
