/**
 * A node's artifact shelf: every file attached to its messages or written by its agent,
 * newest first, with size, type, the run that made it (a link back to that turn in the
 * chat), a preview for text, markdown and images, and a download.
 */
import { useMemo, useState } from 'react';
import { useSession } from '../api/context';
import { formatSize, formatTime } from '../ui/format';
import { Empty, ErrorNote, Skeleton } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';
import { shelfApi } from './api';
import { previewKind, typeLabel, type Artifact } from './kinds';
import { Preview } from './Preview';

/** Props of {@link Shelf}. */
export interface ShelfProps {
  structureId: string;
  roleId: string;
  /** Changes when the node may have new files (a turn ended). */
  refreshKey: unknown;
  /** Shows the turn of a run in the chat. */
  onShowRun: (runId: string) => void;
}

/** The shelf of one node. */
export function Shelf({ structureId, roleId, refreshKey, onShowRun }: ShelfProps) {
  const { api } = useSession();
  const shelf = useMemo(() => shelfApi(api, structureId, roleId), [api, structureId, roleId]);
  const list = useLoad((signal) => shelf.list(signal), [shelf, refreshKey]);
  const [previewing, setPreviewing] = useState<Artifact | null>(null);
  const [error, setError] = useState<unknown>(null);
  const artifacts = list.data ?? [];
  return (
    <section className="shelf" aria-label="Artifact shelf">
      <ErrorNote error={list.error ?? error} onDismiss={() => setError(null)} />
      {!list.data && !list.error ? <Skeleton lines={4} label="Loading the shelf" /> : null}
      {list.data && artifacts.length === 0 ? <Empty>No files yet. Attachments and files the agent writes land here.</Empty> : null}
      {artifacts.length > 0 ? (
        <ul className="shelf-list">
          {artifacts.map((artifact) => (
            <li key={artifact.name} className="shelf-item" data-artifact={artifact.name}>
              <div className="shelf-main">
                <span className="shelf-name">{artifact.name}</span>
                <span className="muted small">
                  {typeLabel(artifact.content_type)} · {formatSize(artifact.size)} · {formatTime(artifact.created_at)}
                </span>
                {artifact.run_id ? (
                  <span className="small">
                    {artifact.source === 'attachment' ? 'Attached to a message of ' : 'Written by the agent in '}
                    <button type="button" className="btn-link" onClick={() => onShowRun(artifact.run_id!)}>
                      run {artifact.run_id.slice(0, 8)}
                    </button>
                  </span>
                ) : null}
              </div>
              <div className="shelf-actions">
                {previewKind(artifact) !== 'none' ? (
                  <button type="button" className="btn btn-small" aria-label={`Preview ${artifact.name}`} onClick={() => setPreviewing(artifact)}>
                    Preview
                  </button>
                ) : null}
                <button
                  type="button"
                  className="btn btn-small"
                  aria-label={`Download ${artifact.name}`}
                  onClick={() => {
                    setError(null);
                    shelf.download(artifact.name).catch((failure: unknown) => setError(failure));
                  }}
                >
                  Download
                </button>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {previewing ? <Preview artifact={previewing} shelf={shelf} onClose={() => setPreviewing(null)} /> : null}
    </section>
  );
}
