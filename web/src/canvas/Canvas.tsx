/**
 * The workspace canvas: an SVG of the node tree at each node's x/y, with edges to the
 * parents, labels, role ids and live state badges. Drag a node (or focus it and use the
 * arrow keys) to move it; click or Enter selects it.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { OrgNode } from '../api/types';
import { NODE_H, NODE_W, clip, edgePath, fitView, zoomed, type Box } from './geometry';

/** Props of {@link Canvas}. */
export interface CanvasProps {
  nodes: OrgNode[];
  selected?: string | undefined;
  /** False for viewers: nodes cannot be moved. */
  canMove: boolean;
  onSelect: (roleId: string) => void;
  /** Persists a move; the canvas shows the new spot until the next refresh confirms it. */
  onMove: (roleId: string, x: number, y: number) => Promise<void>;
}

interface Drag {
  roleId: string;
  pointerId: number;
  startX: number;
  startY: number;
  nodeX: number;
  nodeY: number;
  moved: boolean;
}

/** The canvas. */
export function Canvas({ nodes, selected, canMove, onSelect, onMove }: CanvasProps) {
  const svgRef = useRef<SVGSVGElement>(null);
  const drag = useRef<Drag | null>(null);
  const keyTimer = useRef<number | undefined>(undefined);
  /** Positions moved here and not yet confirmed by the server. */
  const [moved, setMoved] = useState<Record<string, { x: number; y: number }>>({});
  const [dragging, setDragging] = useState<string | null>(null);
  const [zoom, setZoom] = useState(1);
  const [pan, setPan] = useState({ x: 0, y: 0 });
  const panning = useRef<{ pointerId: number; x: number; y: number; pan: { x: number; y: number } } | null>(null);

  const placed = useMemo(() => nodes.map((node) => ({ ...node, ...(moved[node.role_id] ?? {}) })), [nodes, moved]);
  const byId = useMemo(() => new Map(placed.map((node) => [node.id, node])), [placed]);

  // Drop local positions the server now reports.
  useEffect(() => {
    setMoved((current) => {
      const next = { ...current };
      let changed = false;
      for (const node of nodes) {
        const spot = next[node.role_id];
        if (spot && spot.x === node.x && spot.y === node.y) {
          delete next[node.role_id];
          changed = true;
        }
      }
      return changed ? next : current;
    });
  }, [nodes]);

  // The view fits the tree, but holds still while a node is dragged.
  const fitted = fitView(placed);
  const frozen = useRef<Box>(fitted);
  if (!dragging) frozen.current = fitted;
  const view = zoomed(frozen.current, zoom, pan);
  const zoomBy = (factor: number) => setZoom((current) => Math.min(4, Math.max(0.25, current * factor)));
  const reset = () => {
    setZoom(1);
    setPan({ x: 0, y: 0 });
  };

  const persist = (roleId: string, x: number, y: number) => {
    onMove(roleId, x, y).catch(() => {
      // The page shows the error; put the node back where the server has it.
      setMoved((current) => {
        const next = { ...current };
        delete next[roleId];
        return next;
      });
    });
  };

  const scale = () => {
    const ctm = svgRef.current?.getScreenCTM();
    return ctm && ctm.a !== 0 ? ctm.a : 1;
  };

  const onPointerDown = (event: PointerEvent<SVGGElement>, node: OrgNode) => {
    if (event.button !== 0) return;
    event.currentTarget.setPointerCapture(event.pointerId);
    const spot = moved[node.role_id] ?? node;
    drag.current = { roleId: node.role_id, pointerId: event.pointerId, startX: event.clientX, startY: event.clientY, nodeX: spot.x, nodeY: spot.y, moved: false };
  };
  const onPointerMove = (event: PointerEvent<SVGGElement>) => {
    const current = drag.current;
    if (!current || current.pointerId !== event.pointerId || !canMove) return;
    const k = scale();
    const dx = (event.clientX - current.startX) / k;
    const dy = (event.clientY - current.startY) / k;
    if (!current.moved && Math.hypot(event.clientX - current.startX, event.clientY - current.startY) < 4) return;
    if (!current.moved) setDragging(current.roleId);
    current.moved = true;
    setMoved((spots) => ({ ...spots, [current.roleId]: { x: Math.round(current.nodeX + dx), y: Math.round(current.nodeY + dy) } }));
  };
  const onPointerUp = (event: PointerEvent<SVGGElement>) => {
    const current = drag.current;
    if (!current || current.pointerId !== event.pointerId) return;
    drag.current = null;
    setDragging(null);
    if (current.moved) {
      const k = scale();
      const x = Math.round(current.nodeX + (event.clientX - current.startX) / k);
      const y = Math.round(current.nodeY + (event.clientY - current.startY) / k);
      setMoved((spots) => ({ ...spots, [current.roleId]: { x, y } }));
      persist(current.roleId, x, y);
    } else {
      onSelect(current.roleId);
    }
  };

  const onKeyDown = (event: KeyboardEvent<SVGGElement>, node: OrgNode) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(node.role_id);
      return;
    }
    const step = event.shiftKey ? 100 : 20;
    const delta = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[event.key];
    if (!delta || !canMove) return;
    event.preventDefault();
    const spot = moved[node.role_id] ?? node;
    const x = spot.x + delta[0]!;
    const y = spot.y + delta[1]!;
    setMoved((spots) => ({ ...spots, [node.role_id]: { x, y } }));
    window.clearTimeout(keyTimer.current);
    keyTimer.current = window.setTimeout(() => persist(node.role_id, x, y), 400);
  };

  return (
    <>
    <svg
      ref={svgRef}
      className={dragging ? 'canvas canvas-dragging' : 'canvas'}
      viewBox={`${view.x} ${view.y} ${view.width} ${view.height}`}
      preserveAspectRatio="xMidYMin meet"
      role="group"
      aria-label="Node tree"
      data-testid="canvas"
      onWheel={(event) => zoomBy(event.deltaY < 0 ? 1.1 : 1 / 1.1)}
    >
      <defs>
        <pattern id="grid" width="40" height="40" patternUnits="userSpaceOnUse">
          <path d="M 40 0 L 0 0 0 40" className="grid-line" />
        </pattern>
      </defs>
      <rect
        className="canvas-bg"
        x={view.x - 4000}
        y={view.y - 4000}
        width={view.width + 8000}
        height={view.height + 8000}
        fill="url(#grid)"
        onPointerDown={(event) => {
          if (event.button !== 0) return;
          event.currentTarget.setPointerCapture(event.pointerId);
          panning.current = { pointerId: event.pointerId, x: event.clientX, y: event.clientY, pan };
        }}
        onPointerMove={(event) => {
          const current = panning.current;
          if (!current || current.pointerId !== event.pointerId) return;
          const k = scale();
          setPan({ x: current.pan.x - (event.clientX - current.x) / k, y: current.pan.y - (event.clientY - current.y) / k });
        }}
        onPointerUp={() => {
          panning.current = null;
        }}
        onPointerCancel={() => {
          panning.current = null;
        }}
      />
      <g className="edges">
        {placed.map((node) => {
          const parent = node.parent_id ? byId.get(node.parent_id) : undefined;
          return parent ? <path key={`edge-${node.id}`} className="edge" d={edgePath(parent, node)} /> : null;
        })}
      </g>
      {placed.map((node) => (
        <g
          key={node.id}
          className={`node node-${node.state}${node.role_id === selected ? ' node-selected' : ''}${node.role_id === dragging ? ' node-dragging' : ''}`}
          transform={`translate(${node.x - NODE_W / 2} ${node.y - NODE_H / 2})`}
          tabIndex={0}
          role="button"
          aria-pressed={node.role_id === selected}
          aria-label={`${node.label} (${node.role_id}), ${node.state}`}
          data-role-id={node.role_id}
          onPointerDown={(event) => onPointerDown(event, node)}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={() => {
            drag.current = null;
            setDragging(null);
          }}
          onKeyDown={(event) => onKeyDown(event, node)}
        >
          <title>{`${node.label} — ${node.role_id} at (${node.x}, ${node.y})`}</title>
          <rect className="node-box" width={NODE_W} height={NODE_H} rx={8} />
          <rect className="node-accent" width={4} height={NODE_H - 16} x={0} y={8} rx={2} />
          <text className="node-label" x={14} y={26}>
            {clip(node.label, node.container_url ? 23 : 25)}
          </text>
          <text className="node-role" x={14} y={48}>
            {clip(node.role_id, 19)}
          </text>
          {node.container_url ? (
            <g className="node-container" transform={`translate(${NODE_W - 22} 12)`}>
              <title>Runs in a container</title>
              <rect width={12} height={12} rx={2} />
              <path d="M 3 4 H 9 M 3 8 H 9" />
            </g>
          ) : null}
          <g className={`badge badge-${node.state}`} transform={`translate(${NODE_W - 74} 35)`} data-state={node.state}>
            <rect width={64} height={18} rx={9} />
            <circle cx={10} cy={9} r={3.5} className="badge-dot" />
            <text x={17} y={13}>
              {node.state}
            </text>
          </g>
        </g>
      ))}
    </svg>
    <div className="canvas-controls" role="group" aria-label="Zoom">
      <button type="button" className="btn btn-small" aria-label="Zoom out" onClick={() => zoomBy(1 / 1.25)}>
        −
      </button>
      <button type="button" className="btn btn-small" onClick={reset} title="Fit the whole tree">
        Fit
      </button>
      <button type="button" className="btn btn-small" aria-label="Zoom in" onClick={() => zoomBy(1.25)}>
        +
      </button>
    </div>
    </>
  );
}
