/** Workspaces the user owns that were deleted into the archive, each with Restore (shown only when there are some). */
import { useSession } from '../api/context';
import { formatTime } from '../ui/format';
import { useAction } from '../ui/hooks';
import { ErrorNote } from '../ui/Notice';
import { useToast } from '../ui/Toasts';
import { useLoad } from '../ui/useLoad';

interface ArchivedWorkspace {
  id: string;
  name: string;
  node_count: number;
  archived_at: string;
}

export function ArchivedWorkspaces() {
  const { api, structures, refreshStructures } = useSession();
  const toast = useToast();
  // Read again whenever the live list changes (a delete or restore elsewhere on the page).
  const archived = useLoad((signal) => api.get<{ structures: ArchivedWorkspace[] }>('/api/org/structures/archived', { signal }), [api, structures]);
  const { busy, error, run } = useAction();
  const list = archived.data?.structures ?? [];
  if (list.length === 0 && !error) return null;
  return (
    <section aria-labelledby="ws-archived" className="archived-workspaces">
      <h3 id="ws-archived">Deleted workspaces</h3>
      <ErrorNote error={error} />
      <ul className="pick-list">
        {list.map((workspace) => (
          <li key={workspace.id} className="row gap">
            <span className="grow">
              {workspace.name} <span className="muted small">· {workspace.node_count} nodes · deleted {formatTime(workspace.archived_at)}</span>
            </span>
            <button
              type="button"
              className="btn btn-small"
              disabled={busy}
              aria-label={`Restore ${workspace.name}`}
              onClick={() =>
                void run(async () => {
                  await api.post(`/api/org/structures/${encodeURIComponent(workspace.id)}/restore`);
                  await refreshStructures();
                  toast({ tone: 'success', message: `Restored ${workspace.name}.` });
                })
              }
            >
              Restore
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
