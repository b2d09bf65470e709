/** The workspace log: decisions and milestones of every node, newest first. */
import { useState } from 'react';
import { structurePath } from '../api/client';
import { useSession } from '../api/context';
import type { LogEntry } from '../api/types';
import { href } from '../router';
import { formatTime } from '../ui/format';
import { useTitle } from '../ui/hooks';
import { Empty, ErrorNote, Skeleton } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';

export function LogPage({ structureId }: { structureId: string }) {
  const { api } = useSession();
  useTitle('Workspace log');
  const [limit, setLimit] = useState(100);
  const [type, setType] = useState<'all' | LogEntry['type']>('all');
  const log = useLoad((signal) => api.get<{ entries: LogEntry[] }>(`${structurePath(structureId)}/log`, { query: { limit }, signal }), [api, structureId, limit], 5000);
  const entries = (log.data?.entries ?? []).filter((entry) => type === 'all' || entry.type === type);
  return (
    <div className="page page-narrow">
      <div className="page-head">
        <h1>Workspace log</h1>
        <span className="grow" />
        <label className="field field-inline">
          <span>Show</span>
          <select value={type} onChange={(event) => setType(event.target.value as typeof type)}>
            <option value="all">decisions and milestones</option>
            <option value="decision">decisions</option>
            <option value="milestone">milestones</option>
          </select>
        </label>
      </div>
      <ErrorNote error={log.error} />
      {!log.data && !log.error ? <Skeleton lines={5} label="Loading the log" /> : null}
      {log.data && entries.length === 0 ? <Empty>Nothing logged yet. Decisions and milestones of every turn land here.</Empty> : null}
      <ol className="timeline">
        {entries.map((entry) => (
          <li key={entry.id} className={`timeline-item timeline-${entry.type}`}>
            <div className="timeline-meta">
              <span className={`ev-tag ev-tag-${entry.type}`}>{entry.type}</span>
              <time dateTime={entry.created_at}>{formatTime(entry.created_at)}</time>
              <a href={href.canvas(structureId, entry.role_id)}>
                <code>{entry.role_id}</code>
              </a>
            </div>
            <div className="timeline-title">{entry.title}</div>
            {entry.body ? <p className="timeline-body">{entry.body}</p> : null}
          </li>
        ))}
      </ol>
      {log.data && log.data.entries.length >= limit ? (
        <button type="button" className="btn btn-small" onClick={() => setLimit((value) => Math.min(500, value + 100))} disabled={limit >= 500}>
          Show more
        </button>
      ) : null}
    </div>
  );
}
