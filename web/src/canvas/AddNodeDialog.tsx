/** The add-node form (POST /structures/{id}/agents). */
import { useState } from 'react';
import { structurePath } from '../api/client';
import { useSession } from '../api/context';
import type { OrgNode } from '../api/types';
import { Dialog } from '../ui/Dialog';
import { ErrorNote } from '../ui/Notice';

/** Adds a node under a parent. */
export function AddNodeDialog({
  structureId,
  nodes,
  parent,
  onClose,
  onAdded,
}: {
  structureId: string;
  nodes: readonly OrgNode[];
  parent: OrgNode | undefined;
  onClose: () => void;
  onAdded: (node: OrgNode) => Promise<void>;
}) {
  const { api } = useSession();
  const [parentId, setParentId] = useState(parent?.id ?? '');
  const [roleId, setRoleId] = useState('');
  const [label, setLabel] = useState('');
  const [x, setX] = useState<string>('');
  const [y, setY] = useState<string>('');
  const [context, setContext] = useState('');
  const [containerUrl, setContainerUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      // An empty position is laid out beside the parent (the layout library loads only now).
      const spot = x === '' || y === '' ? (await import('./layout')).spotForNewChild(nodes, parentId || null) : { x: 0, y: 0 };
      const node = await api.post<OrgNode>(`${structurePath(structureId)}/agents`, {
        role_id: roleId.trim(),
        label: label.trim(),
        ...(parentId ? { parent_id: parentId } : {}),
        x: x === '' ? spot.x : Number(x),
        y: y === '' ? spot.y : Number(y),
        ...(context ? { starting_context: context } : {}),
        ...(containerUrl.trim() ? { container_url: containerUrl.trim() } : {}),
      });
      await onAdded(node);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <Dialog title="Add a node" onClose={onClose}>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <div className="form-grid">
          <label className="field">
            <span>Role id</span>
            <input name="role_id" required autoFocus placeholder="team-role" pattern="[a-z0-9]+(-[a-z0-9]+)+" maxLength={64} value={roleId} onChange={(event) => setRoleId(event.target.value)} />
            <small className="hint">Lowercase &lt;team&gt;-&lt;role&gt;, e.g. sales-analyst.</small>
          </label>
          <label className="field">
            <span>Label</span>
            <input name="label" required maxLength={200} value={label} onChange={(event) => setLabel(event.target.value)} />
          </label>
          <label className="field">
            <span>Parent</span>
            <select name="parent_id" value={parentId} onChange={(event) => setParentId(event.target.value)}>
              {nodes.length === 0 ? <option value="">(none: this is the root)</option> : null}
              {nodes.map((node) => (
                <option key={node.id} value={node.id}>
                  {node.label} ({node.role_id})
                </option>
              ))}
            </select>
          </label>
          <div className="row gap">
            <label className="field">
              <span>x</span>
              <input name="x" type="number" step={1} placeholder="auto" value={x} onChange={(event) => setX(event.target.value)} />
            </label>
            <label className="field">
              <span>y</span>
              <input name="y" type="number" step={1} placeholder="auto" value={y} onChange={(event) => setY(event.target.value)} />
            </label>
          </div>
        </div>
        <label className="field">
          <span>Starting context</span>
          <textarea name="starting_context" rows={4} maxLength={65536} value={context} onChange={(event) => setContext(event.target.value)} />
        </label>
        <label className="field">
          <span>Container URL (optional)</span>
          <input name="container_url" type="url" placeholder="http://127.0.0.1:8700" value={containerUrl} onChange={(event) => setContainerUrl(event.target.value)} />
        </label>
        <ErrorNote error={error} labels={{ role_id: 'Role id', label: 'Label', parent_id: 'Parent', starting_context: 'Starting context', container_url: 'Container URL', x: 'x', y: 'y' }} />
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add node'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
