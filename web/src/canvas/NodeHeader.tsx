/** The selected node's header: label, role id, state, and its details form and delete. */
import { useState } from 'react';
import { nodePath } from '../api/client';
import { useSession } from '../api/context';
import type { OrgNode } from '../api/types';
import { Confirm } from '../ui/Dialog';
import { ErrorNote, InfoNote } from '../ui/Notice';

/** Header and details of a node. */
export function NodeHeader({
  structureId,
  node,
  nodes,
  canWrite,
  onChanged,
  onDeleted,
}: {
  structureId: string;
  node: OrgNode;
  nodes: readonly OrgNode[];
  canWrite: boolean;
  onChanged: () => Promise<void>;
  onDeleted: () => Promise<void>;
}) {
  const { api } = useSession();
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const parent = nodes.find((candidate) => candidate.id === node.parent_id);
  const children = nodes.filter((candidate) => candidate.parent_id === node.id);
  return (
    <div className="node-header">
      <div className="node-header-main">
        <div className="node-header-title">
          <h2>{node.label}</h2>
          <span className={`state-pill state-${node.state}`} data-testid="node-state">
            {node.state}
          </span>
        </div>
        <div className="muted small">
          <code>{node.role_id}</code>
          {parent ? <> · reports to {parent.label}</> : ' · root'}
          {children.length > 0 ? ` · ${children.length} report${children.length === 1 ? '' : 's'}` : ''}
          {node.container_url ? ' · container' : ''}
        </div>
      </div>
      <div className="node-header-actions">
        <button type="button" className="btn btn-small" aria-expanded={open} onClick={() => setOpen((value) => !value)}>
          {open ? 'Hide details' : 'Details'}
        </button>
        {canWrite ? (
          <button type="button" className="btn btn-small btn-danger-outline" onClick={() => setConfirming(true)}>
            Delete
          </button>
        ) : null}
      </div>
      {open ? <NodeDetails structureId={structureId} node={node} canWrite={canWrite} onSaved={onChanged} /> : null}
      {confirming ? (
        <Confirm
          title={`Delete ${node.label}?`}
          message={
            <p>
              The node <code>{node.role_id}</code> moves to the archive with its history, artifacts and timeline; you can restore it from there.
              {children.length > 0 ? ' It has reports, so the server will refuse until they are deleted or moved.' : ''}
            </p>
          }
          confirmLabel="Delete node"
          danger
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            await api.del(nodePath(structureId, node.role_id));
            await onDeleted();
          }}
        />
      ) : null}
    </div>
  );
}

function NodeDetails({ structureId, node, canWrite, onSaved }: { structureId: string; node: OrgNode; canWrite: boolean; onSaved: () => Promise<void> }) {
  const { api } = useSession();
  const [label, setLabel] = useState(node.label);
  const [context, setContext] = useState(node.starting_context);
  const [containerUrl, setContainerUrl] = useState(node.container_url ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const save = async () => {
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      await api.patch(nodePath(structureId, node.role_id), {
        label: label.trim(),
        starting_context: context,
        container_url: containerUrl.trim() ? containerUrl.trim() : null,
      });
      setSaved(true);
      await onSaved();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="form node-details"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <fieldset disabled={!canWrite || busy}>
        <label className="field">
          <span>Label</span>
          <input name="label" required maxLength={200} value={label} onChange={(event) => setLabel(event.target.value)} />
        </label>
        <label className="field">
          <span>Starting context</span>
          <textarea name="starting_context" rows={5} maxLength={65536} value={context} onChange={(event) => setContext(event.target.value)} />
        </label>
        <label className="field">
          <span>Container URL</span>
          <input name="container_url" type="url" placeholder="none: the built-in runtime answers" value={containerUrl} onChange={(event) => setContainerUrl(event.target.value)} />
        </label>
        <div className="muted small">
          Position ({node.x}, {node.y}) · created {new Date(node.created_at).toLocaleDateString()}
        </div>
        <ErrorNote error={error} />
        {saved ? <InfoNote tone="success">Saved.</InfoNote> : null}
        {canWrite ? (
          <button type="submit" className="btn btn-small btn-primary">
            {busy ? 'Saving…' : 'Save details'}
          </button>
        ) : null}
      </fieldset>
    </form>
  );
}
