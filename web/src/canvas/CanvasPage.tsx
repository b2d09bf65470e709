/**
 * The canvas page: the node tree (polled every 2 s so idle/working badges stay live),
 * "Tidy up", add / archive / restore, and the selected node's panel beside it, behind a
 * resizable splitter. On phones the tree is a list, and a selected node's panel takes
 * the screen.
 */
import { lazy, Suspense, useState, type CSSProperties } from 'react';
import { nodePath, structurePath } from '../api/client';
import { useRole, useSession } from '../api/context';
import type { OrgNode, StructureDetail } from '../api/types';
import { href, navigate } from '../router';
import { NARROW, useMediaQuery, useTitle } from '../ui/hooks';
import { ErrorNote, Skeleton } from '../ui/Notice';
import { useToast } from '../ui/Toasts';
import { useLoad } from '../ui/useLoad';
import { AddNodeDialog } from './AddNodeDialog';
import { ArchiveDialog } from './ArchiveDialog';
import type { Point } from './layout';
import { NodeList } from './NodeList';
import { NodePanel } from './NodePanel';
import { NodeSearch } from './NodeSearch';
import { Splitter, usePanelWidth } from './Splitter';
import { useTidy } from './useTidy';

/** The canvas library loads only where a canvas is shown (not on phones). */
const FlowCanvas = lazy(() => import('./FlowCanvas').then((module) => ({ default: module.FlowCanvas })));

/** The structure canvas with the selected node's panel. */
export function CanvasPage({ structureId, roleId, runId }: { structureId: string; roleId?: string | undefined; runId?: string | undefined }) {
  const { api, refreshStructures } = useSession();
  const role = useRole(structureId);
  const canWrite = role === 'operator' || role === 'owner';
  const narrow = useMediaQuery(NARROW);
  const toast = useToast();
  const structure = useLoad((signal) => api.get<StructureDetail>(structurePath(structureId), { signal }), [api, structureId], 2000);
  const [dialog, setDialog] = useState<'add' | 'archive' | null>(null);
  const [moveError, setMoveError] = useState<unknown>(null);
  const [width, setWidth] = usePanelWidth();
  /** Nodes whose reports the canvas hides (for this visit of the page). */
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const toggleCollapsed = (id: string) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const detail = structure.data;
  const nodes = detail?.agents ?? [];
  const selected = roleId ? nodes.find((node) => node.role_id === roleId) : undefined;
  useTitle(detail ? (selected ? `${selected.label} · ${detail.name}` : detail.name) : 'Canvas');

  const reloadAll = async () => {
    await structure.reload();
    await refreshStructures().catch(() => undefined);
  };
  const move = async (moving: string, point: Point) => {
    setMoveError(null);
    try {
      const updated = await api.patch<OrgNode>(nodePath(structureId, moving), point);
      if (structure.data) structure.setData({ ...structure.data, agents: structure.data.agents.map((node) => (node.role_id === moving ? { ...node, ...updated } : node)) });
    } catch (failure) {
      setMoveError(failure);
      throw failure;
    }
  };
  const tidy = useTidy({ nodes, save: (moving, point) => api.patch<OrgNode>(nodePath(structureId, moving), point), reload: reloadAll, onError: setMoveError });
  /** A turn of a node was accepted: it shows working at once; when it ends, the server's states are read again. */
  const activity = (roleIdOf: string) => (running: boolean) => {
    if (running) {
      if (structure.data) structure.setData({ ...structure.data, agents: structure.data.agents.map((node) => (node.role_id === roleIdOf ? { ...node, state: 'working' } : node)) });
    } else {
      void structure.reload();
    }
  };

  if (!detail) {
    return <div className="page">{structure.error ? <ErrorNote error={structure.error} /> : <Skeleton lines={6} label="Loading the workspace" />}</div>;
  }

  const onDeleted = async (deleted: OrgNode) => {
    navigate(href.canvas(structureId));
    await reloadAll();
    toast({
      tone: 'success',
      message: `${deleted.label} moved to the archive.`,
      action: {
        label: 'Undo',
        run: async () => {
          await api.post(`${nodePath(structureId, deleted.role_id)}/restore`);
          await reloadAll();
        },
      },
    });
  };

  const working = nodes.filter((node) => node.state === 'working').length;
  const layoutStyle = { '--panel-width': `${width}px` } as CSSProperties;
  return (
    <div className={`canvas-layout${selected ? ' has-selection' : ''}`} style={layoutStyle}>
      <section className="canvas-area" aria-labelledby="canvas-title">
        <div className="toolbar">
          <h1 id="canvas-title">{detail.name}</h1>
          <span className="muted small">
            {detail.template} · {nodes.length} node{nodes.length === 1 ? '' : 's'} · {working} working
          </span>
          <span className="grow" />
          {nodes.length > 1 ? <NodeSearch nodes={nodes} onPick={(picked) => navigate(href.canvas(structureId, picked))} /> : null}
          {canWrite && !narrow && nodes.length > 1 ? (
            <button type="button" className="btn btn-small" disabled={tidy.busy} onClick={() => void tidy.run()} title="Lay the whole tree out again and save the positions">
              {tidy.busy ? 'Tidying…' : 'Tidy up'}
            </button>
          ) : null}
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
        {nodes.length === 0 ? (
          <div className="canvas-frame canvas-empty">
            <p>This workspace has no node yet.</p>
            {canWrite ? (
              <button type="button" className="btn btn-primary" onClick={() => setDialog('add')}>
                Add the root node
              </button>
            ) : null}
          </div>
        ) : narrow ? (
          <NodeList structureId={structureId} nodes={nodes} selected={roleId} />
        ) : (
          <div className="canvas-frame">
            <Suspense fallback={<Skeleton lines={4} label="Loading the canvas" />}>
              <FlowCanvas
              nodes={nodes}
              selected={roleId}
              canMove={canWrite}
              onSelect={(id) => navigate(href.canvas(structureId, id))}
              onMove={move}
                placed={tidy.placed}
                fitRequest={tidy.fitRequest}
                collapsed={collapsed}
              />
            </Suspense>
          </div>
        )}
        {!narrow && nodes.length > 0 ? (
          <p className="hint canvas-hint">
            Click a node to open its chat. Scroll or pinch to zoom at the pointer; drag the background to pan.
            {canWrite ? ' Drag a node to move it, or select it and use the arrow keys (Shift for bigger steps).' : ''}
          </p>
        ) : null}
      </section>
      {narrow ? null : <Splitter width={width} onResize={setWidth} />}
      <aside className={`side-panel${selected ? ' side-panel-node' : ''}`} aria-label={selected ? `${selected.label}` : 'Nodes'}>
        {selected ? (
          <NodePanel
            key={selected.role_id}
            structureId={structureId}
            node={selected}
            nodes={nodes}
            canWrite={canWrite}
            onChanged={reloadAll}
            onDeleted={() => onDeleted(selected)}
            onActivity={activity(selected.role_id)}
            run={runId}
            {...(narrow ? {} : { collapse: { collapsed: collapsed.has(selected.id), toggle: () => toggleCollapsed(selected.id) } })}
          />
        ) : narrow ? (
          roleId ? <ErrorNote error={new Error(`There is no node ${roleId} in this workspace (it may have been deleted).`)} /> : null
        ) : (
          <div className="side-empty">
            <h2>Nodes</h2>
            <p className="muted small">Select a node here or on the canvas to open its chat and files.</p>
            {roleId ? <ErrorNote error={new Error(`There is no node ${roleId} in this workspace (it may have been deleted).`)} /> : null}
            <NodeList structureId={structureId} nodes={nodes} selected={roleId} />
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
