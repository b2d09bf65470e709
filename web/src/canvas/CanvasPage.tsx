/**
 * The canvas page: the node tree (polled every 2 s so idle/working badges stay live),
 * add / archive / restore, and the side panel of the selected node with its chat.
 */
import { Fragment, useState } from 'react';
import { nodePath, structurePath } from '../api/client';
import { useRole, useSession } from '../api/context';
import type { OrgNode, StructureDetail } from '../api/types';
import { ChatPanel } from '../chat/ChatPanel';
import { href, navigate } from '../router';
import { ErrorNote } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';
import { AddNodeDialog } from './AddNodeDialog';
import { ArchiveDialog } from './ArchiveDialog';
import { Canvas } from './Canvas';
import { NodeHeader } from './NodeHeader';

/** The workspace canvas with the selected node's panel. */
export function CanvasPage({ structureId, roleId }: { structureId: string; roleId?: string | undefined }) {
  const { api, refreshStructures } = useSession();
  const role = useRole(structureId);
  const canWrite = role === 'operator' || role === 'owner';
  const structure = useLoad((signal) => api.get<StructureDetail>(structurePath(structureId), { signal }), [api, structureId], 2000);
  const [dialog, setDialog] = useState<'add' | 'archive' | null>(null);
  const [moveError, setMoveError] = useState<unknown>(null);

  const detail = structure.data;
  const nodes = detail?.agents ?? [];
  const selected = roleId ? nodes.find((node) => node.role_id === roleId) : undefined;

  const move = async (moving: string, x: number, y: number) => {
    setMoveError(null);
    try {
      const updated = await api.patch<OrgNode>(nodePath(structureId, moving), { x, y });
      if (detail) structure.setData({ ...detail, agents: detail.agents.map((node) => (node.role_id === moving ? { ...node, ...updated } : node)) });
    } catch (failure) {
      setMoveError(failure);
      throw failure;
    }
  };

  if (!detail) {
    return (
      <div className="page">
        {structure.error ? <ErrorNote error={structure.error} /> : <p className="muted">Loading the workspace…</p>}
      </div>
    );
  }

  const reloadAll = async () => {
    await structure.reload();
    await refreshStructures().catch(() => undefined);
  };

  return (
    <div className="canvas-layout">
      <section className="canvas-area" aria-labelledby="canvas-title">
        <div className="toolbar">
          <h1 id="canvas-title">{detail.name}</h1>
          <span className="muted small">
            {detail.template} · {nodes.length} node{nodes.length === 1 ? '' : 's'} · {nodes.filter((node) => node.state === 'working').length} working
          </span>
          <span className="grow" />
          {canWrite ? (
            <button type="button" className="btn btn-small btn-primary" onClick={() => setDialog('add')}>
              + Add node
            </button>
          ) : null}
          <button type="button" className="btn btn-small" onClick={() => setDialog('archive')}>
            Archive
          </button>
        </div>
        {structure.error ? <ErrorNote error={structure.error} /> : null}
        <ErrorNote error={moveError} onDismiss={() => setMoveError(null)} />
        <div className="canvas-frame">
          {nodes.length === 0 ? (
            <div className="canvas-empty">
              <p>This workspace has no node yet.</p>
              {canWrite ? (
                <button type="button" className="btn btn-primary" onClick={() => setDialog('add')}>
                  Add the root node
                </button>
              ) : null}
            </div>
          ) : (
            <Canvas nodes={nodes} selected={roleId} canMove={canWrite} onSelect={(id) => navigate(href.canvas(structureId, id))} onMove={move} />
          )}
        </div>
        <p className="hint canvas-hint">
          Click a node to open its chat. {canWrite ? 'Drag a node to move it, or Tab to it and use the arrow keys (Shift for bigger steps).' : ''}
        </p>
      </section>
      <aside className="side-panel" aria-label="Selected node">
        {selected ? (
          <Fragment key={selected.role_id}>
            <NodeHeader
              structureId={structureId}
              node={selected}
              nodes={nodes}
              canWrite={canWrite}
              onChanged={reloadAll}
              onDeleted={async () => {
                navigate(href.canvas(structureId));
                await reloadAll();
              }}
            />
            <ChatPanel structureId={structureId} node={selected} canChat={canWrite} />
          </Fragment>
        ) : (
          <div className="side-empty">
            <h2>Nodes</h2>
            <p className="muted small">Select a node here or on the canvas to open its chat and details.</p>
            {roleId ? <ErrorNote error={new Error(`There is no node ${roleId} in this workspace (it may have been deleted).`)} /> : null}
            <ul className="node-list">
              {nodes.map((node) => (
                <li key={node.id}>
                  <a href={href.canvas(structureId, node.role_id)} className="node-list-item">
                    <span className="node-list-label">{node.label}</span>
                    <code className="muted">{node.role_id}</code>
                    <span className={`state-pill state-${node.state}`}>{node.state}</span>
                  </a>
                </li>
              ))}
            </ul>
          </div>
        )}
      </aside>
      {dialog === 'add' ? (
        <AddNodeDialog
          structureId={structureId}
          nodes={nodes}
          parent={selected ?? nodes.find((node) => node.parent_id === null)}
          onClose={() => setDialog(null)}
          onAdded={async (node) => {
            setDialog(null);
            await reloadAll();
            navigate(href.canvas(structureId, node.role_id));
          }}
        />
      ) : null}
      {dialog === 'archive' ? <ArchiveDialog structureId={structureId} canWrite={canWrite} onClose={() => setDialog(null)} onRestored={reloadAll} /> : null}
    </div>
  );
}
