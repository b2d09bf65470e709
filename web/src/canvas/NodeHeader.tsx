/**
 * The selected node's header: label, role id, state, and its details form (label,
 * manager, starting context, container) with its Save in an action row that stays in
 * view, and Delete, offered only when the server would accept it (a node with reports
 * says why not).
 */
import { useState } from 'react';
import { nodePath } from '../api/client';
import { useSession } from '../api/context';
import type { OrgNode } from '../api/types';
import { Confirm } from '../ui/Dialog';
import { ErrorNote } from '../ui/Notice';

/** Header and details of a node. */
export function NodeHeader({
  structureId,
  node,
  nodes,
  canWrite,
  onChanged,
  onDeleted,
  collapse,
}: {
  structureId: string;
  node: OrgNode;
  nodes: readonly OrgNode[];
  canWrite: boolean;
  onChanged: () => Promise<void>;
  onDeleted: () => Promise<void>;
  collapse?: { collapsed: boolean; toggle: () => void };
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
        {collapse && children.length > 0 ? (
          <button type="button" className="btn btn-small" aria-pressed={collapse.collapsed} onClick={collapse.toggle}>
            {collapse.collapsed ? 'Show reports' : 'Collapse reports'}
          </button>
        ) : null}
        <button type="button" className="btn btn-small" aria-expanded={open} onClick={() => setOpen((value) => !value)}>
          {open ? 'Hide details' : 'Details'}
        </button>
        {canWrite ? (
          <button
            type="button"
            className="btn btn-small btn-danger-outline"
            disabled={children.length > 0}
            aria-describedby={children.length > 0 ? 'delete-blocked' : undefined}
            onClick={() => setConfirming(true)}
          >
            Delete
          </button>
        ) : null}
      </div>
      {canWrite && children.length > 0 ? (
        <p className="hint node-delete-blocked" id="delete-blocked">
          {node.label} has {children.length} report{children.length === 1 ? '' : 's'} ({children.map((child) => child.label).join(', ')}): give them another manager under Details before deleting it.
        </p>
      ) : null}
      {open ? <NodeDetails structureId={structureId} node={node} nodes={nodes} canWrite={canWrite} onSaved={onChanged} /> : null}
      {confirming ? (
        <Confirm
          title={`Delete ${node.label}?`}
          message={
            <p>
              The node <code>{node.role_id}</code> moves to the archive with its history, artifacts and timeline; you can restore it from there.
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

/** Ids of a node and every node below it (none of them can become its manager). */
export function subtreeIds(nodes: readonly OrgNode[], rootId: string): Set<string> {
  const out = new Set([rootId]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const candidate of nodes) {
      if (candidate.parent_id && out.has(candidate.parent_id) && !out.has(candidate.id)) {
        out.add(candidate.id);
        grew = true;
      }
    }
  }
  return out;
}

function NodeDetails({ structureId, node, nodes, canWrite, onSaved }: { structureId: string; node: OrgNode; nodes: readonly OrgNode[]; canWrite: boolean; onSaved: () => Promise<void> }) {
  const { api } = useSession();
  const [label, setLabel] = useState(node.label);
  const [parentId, setParentId] = useState(node.parent_id ?? '');
  const below = subtreeIds(nodes, node.id);
  const managers = nodes.filter((candidate) => !below.has(candidate.id));
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
        ...(parentId && parentId !== node.parent_id ? { parent_id: parentId } : {}),
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
        {node.parent_id !== null ? (
          <label className="field">
            <span>Reports to</span>
            <select name="parent_id" value={parentId} onChange={(event) => setParentId(event.target.value)}>
              {managers.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.label} ({candidate.role_id})
                </option>
              ))}
            </select>
          </label>
        ) : null}
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
        <ErrorNote error={error} labels={{ label: 'Label', parent_id: 'Reports to', starting_context: 'Starting context', container_url: 'Container URL' }} />
        {canWrite ? (
          <div className="sticky-actions">
            <button type="submit" className="btn btn-small btn-primary">
              {busy ? 'Saving…' : 'Save details'}
            </button>
            {saved ? (
              <span className="muted small" role="status">
                Saved.
              </span>
            ) : null}
          </div>
        ) : null}
      </fieldset>
    </form>
  );
}
