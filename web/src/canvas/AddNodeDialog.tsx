/**
 * The add-node form (POST /structures/{id}/agents). The role id is suggested from the
 * label under the manager's team (`exec-` + "Site reliability" → `exec-site-reliability`)
 * until typed by hand, and checked as it is typed, with the reason inline.
 */
import { useState } from 'react';
import { structurePath } from '../api/client';
import { useSession } from '../api/context';
import type { OrgNode } from '../api/types';
import { Dialog } from '../ui/Dialog';
import { ErrorNote } from '../ui/Notice';

/** A role id from a label under the manager's team: `exec-ceo` + "Site reliability" → `exec-site-reliability`. */
export function suggestRoleId(label: string, parentRoleId: string | undefined): string {
  const role = label
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!role) return '';
  const team = parentRoleId?.split('-')[0] ?? 'team';
  return `${role.startsWith(`${team}-`) ? role : `${team}-${role}`}`.slice(0, 64).replace(/-+$/, '');
}

/** Why a role id would be refused, in words; null when it is fine. */
export function roleIdProblem(roleId: string, nodes: readonly { role_id: string }[]): string | null {
  const value = roleId.trim();
  if (!value) return 'A role id is needed, like sales-analyst.';
  if (!/^[a-z0-9]+(-[a-z0-9]+)+$/.test(value)) {
    return /^[a-z0-9]+$/.test(value)
      ? `Add the team in front, like exec-${value}: a role id is a team and a role joined by a dash.`
      : 'Use lowercase letters and digits only, a team and a role joined by dashes, like sales-analyst.';
  }
  if (nodes.some((node) => node.role_id === value)) return `${value} is taken by another node of this workspace.`;
  return null;
}

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
  const [roleTouched, setRoleTouched] = useState(false);
  const [label, setLabel] = useState('');
  const [tried, setTried] = useState(false);
  const parentNode = nodes.find((node) => node.id === parentId);
  const shownRoleId = roleTouched ? roleId : suggestRoleId(label, parentNode?.role_id);
  const roleProblem = roleIdProblem(shownRoleId, nodes);
  const [x, setX] = useState<string>('');
  const [y, setY] = useState<string>('');
  const [context, setContext] = useState('');
  const [containerUrl, setContainerUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async () => {
    setTried(true);
    if (roleProblem || !label.trim()) return;
    setBusy(true);
    setError(null);
    try {
      // An empty position is laid out beside the parent (the layout library loads only now).
      const spot = x === '' || y === '' ? (await import('./layout')).spotForNewChild(nodes, parentId || null) : { x: 0, y: 0 };
      const node = await api.post<OrgNode>(`${structurePath(structureId)}/agents`, {
        role_id: shownRoleId.trim(),
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
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <div className="form-grid">
          <label className="field">
            <span>Label</span>
            <input name="label" required autoFocus maxLength={200} value={label} aria-invalid={tried && !label.trim()} onChange={(event) => setLabel(event.target.value)} />
            {tried && !label.trim() ? <small className="field-error">A label is needed: the name people see on the canvas.</small> : null}
          </label>
          <label className="field">
            <span>Role id</span>
            <input
              name="role_id"
              required
              placeholder="team-role"
              maxLength={64}
              value={shownRoleId}
              aria-invalid={roleProblem !== null && (tried || roleTouched)}
              aria-describedby="role-id-help"
              onChange={(event) => {
                setRoleTouched(true);
                setRoleId(event.target.value);
              }}
            />
            {roleProblem && (tried || (roleTouched && roleId !== '')) ? (
              <small className="field-error" id="role-id-help" role="alert">
                {roleProblem}
              </small>
            ) : (
              <small className="hint" id="role-id-help">
                Lowercase &lt;team&gt;-&lt;role&gt;, e.g. sales-analyst{roleTouched ? '' : '; suggested from the label'}.
              </small>
            )}
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
