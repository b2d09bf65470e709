/** Archived (deleted) nodes with restore. */
import { useState } from 'react';
import { nodePath, structurePath } from '../api/client';
import { useSession } from '../api/context';
import type { ArchivedNode } from '../api/types';
import { Dialog } from '../ui/Dialog';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote, InfoNote, Skeleton } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';

/** Lists the archive and restores nodes. */
export function ArchiveDialog({ structureId, canWrite, onClose, onRestored }: { structureId: string; canWrite: boolean; onClose: () => void; onRestored: () => Promise<void> }) {
  const { api } = useSession();
  const archive = useLoad((signal) => api.get<{ agents: ArchivedNode[] }>(`${structurePath(structureId)}/archive`, { signal }), [api, structureId]);
  const [error, setError] = useState<unknown>(null);
  const [restored, setRestored] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const restore = async (roleId: string) => {
    setBusy(roleId);
    setError(null);
    setRestored(null);
    try {
      await api.post(`${nodePath(structureId, roleId)}/restore`);
      setRestored(roleId);
      await Promise.all([archive.reload(), onRestored()]);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(null);
    }
  };

  const agents = archive.data?.agents ?? [];
  return (
    <Dialog title="Archived nodes" onClose={onClose} wide>
      <ErrorNote error={archive.error ?? error} />
      {restored ? <InfoNote tone="success">Restored {restored} with its history and artifacts.</InfoNote> : null}
      {archive.loading && !archive.data ? <Skeleton lines={3} label="Loading the archive" /> : null}
      {archive.data && agents.length === 0 ? <Empty>No archived node. Deleted nodes land here with their history, artifacts and timeline.</Empty> : null}
      {agents.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th>Label</th>
              <th>Role id</th>
              <th>Archived</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {agents.map((node) => (
              <tr key={`${node.id}:${node.archived_at}`}>
                <td>{node.label}</td>
                <td>
                  <code>{node.role_id}</code>
                </td>
                <td className="muted">{formatTime(node.archived_at)}</td>
                <td className="actions">
                  {canWrite ? (
                    <button type="button" className="btn btn-small" disabled={busy !== null} onClick={() => void restore(node.role_id)}>
                      {busy === node.role_id ? 'Restoring…' : 'Restore'}
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Dialog>
  );
}
