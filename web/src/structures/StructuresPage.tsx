/** The structures list (with the caller's role and node count) and creation from a template. */
import { useEffect, useState } from 'react';
import { useSession } from '../api/context';
import { TEMPLATES, type StructureDetail } from '../api/types';
import { href, navigate } from '../router';
import { formatTime } from '../ui/format';
import { useTitle } from '../ui/hooks';
import { Empty, ErrorNote } from '../ui/Notice';
import { ArchivedWorkspaces } from './ArchivedWorkspaces';

/** Lists and creates structures. */
export function StructuresPage() {
  const { api, structures, refreshStructures } = useSession();
  useTitle('Workspaces');
  const [name, setName] = useState('');
  const [template, setTemplate] = useState<string>('exec-team');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    refreshStructures().catch((failure: unknown) => setError(failure));
  }, [refreshStructures]);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      const created = await api.post<StructureDetail>('/api/org/structures', { name: name.trim(), template });
      await refreshStructures();
      navigate(href.canvas(created.id));
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <div className="page page-narrow">
      <div className="page-head">
        <h1>Workspaces</h1>
      </div>
      <div className="split">
        <section className="card grow" aria-labelledby="ws-list">
          <h2 id="ws-list">Your workspaces</h2>
          {structures.length === 0 ? (
            <Empty>No workspace yet. Create one from a template.</Empty>
          ) : (
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Your role</th>
                  <th className="num">Nodes</th>
                  <th className="col-optional">Created</th>
                </tr>
              </thead>
              <tbody>
                {structures.map((structure) => (
                  <tr key={structure.id}>
                    <td>
                      <a href={href.canvas(structure.id)}>{structure.name}</a>
                    </td>
                    <td>
                      <span className={`role-chip role-${structure.role}`}>{structure.role}</span>
                    </td>
                    <td className="num">{structure.node_count}</td>
                    <td className="muted col-optional">{formatTime(structure.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <ArchivedWorkspaces />
        </section>
        <form
          className="card side-form"
          aria-labelledby="ws-create"
          onSubmit={(event) => {
            event.preventDefault();
            void create();
          }}
        >
          <h2 id="ws-create">New workspace</h2>
          <label className="field">
            <span>Name</span>
            <input name="name" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />
          </label>
          <label className="field">
            <span>Template</span>
            <select name="template" value={template} onChange={(event) => setTemplate(event.target.value)}>
              {TEMPLATES.map((candidate) => (
                <option key={candidate} value={candidate}>
                  {candidate}
                </option>
              ))}
            </select>
          </label>
          <ErrorNote error={error} labels={{ name: 'Name', template: 'Template' }} />
          <button type="submit" className="btn btn-primary" disabled={busy || !name.trim()}>
            {busy ? 'Creating…' : 'Create workspace'}
          </button>
        </form>
      </div>
    </div>
  );
}
