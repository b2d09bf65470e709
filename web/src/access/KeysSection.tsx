/**
 * MCP node keys: mint with a label (the token is shown once, with a copy button and a
 * warning), list every node's keys (label, prefix, created, last used), revoke with
 * confirmation.
 */
import { useState } from 'react';
import { nodePath, structurePath } from '../api/client';
import { useSession } from '../api/context';
import type { CreatedKey, KeyListing, OrgNode, StructureDetail } from '../api/types';
import { Confirm } from '../ui/Dialog';
import { formatAgo, formatTime } from '../ui/format';
import { Empty, ErrorNote, InfoNote } from '../ui/Notice';
import { SecretOnce } from '../ui/SecretOnce';
import { useAction } from '../ui/hooks';
import { useLoad } from '../ui/useLoad';

interface NodeKey extends KeyListing {
  node: OrgNode;
}

export function KeysSection({ structureId }: { structureId: string }) {
  const { api } = useSession();
  const keys = useLoad(
    async (signal) => {
      const detail = await api.get<StructureDetail>(structurePath(structureId), { signal });
      const lists = await Promise.all(
        detail.agents.map((node) =>
          api.get<{ keys: KeyListing[] }>(`${nodePath(structureId, node.role_id)}/mcp-keys`, { signal }).then((body) => body.keys.map((key) => ({ ...key, node }))),
        ),
      );
      return { nodes: detail.agents, keys: lists.flat().sort((a, b) => (a.created_at < b.created_at ? 1 : -1)) };
    },
    [api, structureId],
  );
  const [roleId, setRoleId] = useState('');
  const [label, setLabel] = useState('');
  const [minted, setMinted] = useState<(CreatedKey & { roleId: string }) | null>(null);
  const [revoking, setRevoking] = useState<NodeKey | null>(null);
  const { busy, error, setError, run } = useAction();
  const [notice, setNotice] = useState<string | null>(null);

  const nodes = keys.data?.nodes ?? [];
  const target = roleId || nodes[0]?.role_id || '';

  const mint = () =>
    run(async () => {
      setNotice(null);
      const created = await api.post<CreatedKey>(`${nodePath(structureId, target)}/mcp-key`, label.trim() ? { label: label.trim() } : {});
      setMinted({ ...created, roleId: target });
      setLabel('');
      await keys.reload();
    });

  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title">MCP keys</h2>
      <p className="muted small">A node key lets another agent act as one node over MCP. Revoking it ends its open sessions at once.</p>
      <form
        className="row gap wrap mint-form"
        onSubmit={(event) => {
          event.preventDefault();
          void mint();
        }}
      >
        <label className="field">
          <span>Node</span>
          <select name="node" value={target} onChange={(event) => setRoleId(event.target.value)}>
            {nodes.map((node) => (
              <option key={node.id} value={node.role_id}>
                {node.label} ({node.role_id})
              </option>
            ))}
          </select>
        </label>
        <label className="field grow">
          <span>Label</span>
          <input name="label" maxLength={200} placeholder="e.g. laptop Claude Desktop" value={label} onChange={(event) => setLabel(event.target.value)} />
        </label>
        <button type="submit" className="btn btn-primary" disabled={busy || !target}>
          {busy ? 'Minting…' : 'Mint key'}
        </button>
      </form>
      {minted ? (
        <SecretOnce key={minted.token} secret={minted.token} label="New MCP key token" noun="token" onDone={() => setMinted(null)}>
          <strong>Copy this token now.</strong> It is shown only once; the server keeps only its hash. Anyone holding it can act as {minted.roleId}.
        </SecretOnce>
      ) : null}
      <ErrorNote error={keys.error ?? error} onDismiss={() => setError(null)} labels={{ label: 'Label', node: 'Node' }} />
      {notice ? <InfoNote tone="success">{notice}</InfoNote> : null}
      {keys.data && keys.data.keys.length === 0 ? <Empty>No key yet.</Empty> : null}
      {keys.data && keys.data.keys.length > 0 ? (
        <table className="table table-dense">
          <thead>
            <tr>
              <th>Label</th>
              <th>Node</th>
              <th className="col-optional">Prefix</th>
              <th className="col-optional">Created</th>
              <th className="col-optional">Last used</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.keys.map((key) => (
              <tr key={key.id}>
                <td>{key.label || <span className="muted">(no label)</span>}</td>
                <td>
                  <code>{key.node.role_id}</code>
                </td>
                <td className="col-optional">
                  <code>{key.prefix}{key.hint}…</code>
                </td>
                <td className="muted nowrap col-optional">{formatTime(key.created_at)}</td>
                <td className="muted nowrap col-optional">{formatAgo(key.last_used_at)}</td>
                <td className="actions">
                  <button type="button" className="btn btn-small btn-danger-outline" aria-label={`Revoke ${key.label || `${key.prefix}${key.hint}…`}`} onClick={() => setRevoking(key)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {revoking ? (
        <Confirm
          title="Revoke this key?"
          message={
            <p>
              The key <strong>{revoking.label || `${revoking.prefix}${revoking.hint}…`}</strong> of <code>{revoking.node.role_id}</code> stops working immediately; its open MCP sessions and streams end.
            </p>
          }
          confirmLabel="Revoke key"
          danger
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await api.del(`${nodePath(structureId, revoking.node.role_id)}/mcp-key/${encodeURIComponent(revoking.id)}`);
            if (minted?.id === revoking.id) setMinted(null);
            setNotice(`Revoked ${revoking.label || `${revoking.prefix}${revoking.hint}…`}.`);
            await keys.reload();
          }}
        />
      ) : null}
    </section>
  );
}
