/**
 * The structure canvas on React Flow: nodes at their stored positions (nodes without
 * one laid out beside their parent), pan and zoom anchored on the pointer, a minimap
 * for larger trees, collapsed subtrees hidden, and moves by drag or by arrow keys on a
 * selected node, each saved with PATCH x/y. The view is fitted once when the tree first
 * shows (never below a readable zoom: a large tree then opens at its root) and on request
 * (`fitRequest`), never after a move, so nothing jumps when a node is dropped. A node
 * selected elsewhere (the node list, search) is centred at a readable size when it is
 * not already in view so.
 */
import { Controls, MiniMap, ReactFlow, type NodeChange, type ReactFlowInstance } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './flow.css';
import { useEffect, useMemo, useReducer, useRef, useState } from 'react';
import type { OrgNode } from '../api/types';
import { collapsedView, toFlowEdges, toFlowNodes, type CardNode } from './flow';
import { NODE_H, NODE_W, displayPositions, type Point } from './layout';
import { movesReducer } from './moves';
import { NodeCard } from './NodeCard';

/** Props of {@link FlowCanvas}. */
export interface FlowCanvasProps {
  nodes: readonly OrgNode[];
  selected?: string | undefined;
  /** False for viewers: nodes cannot be moved. */
  canMove: boolean;
  onSelect: (roleId: string) => void;
  /** Saves a node's new spot; a rejection puts it back. */
  onMove: (roleId: string, point: Point) => Promise<void>;
  /** Positions placed here before the server reports them (after "Tidy up"). */
  placed?: ReadonlyMap<string, Point> | undefined;
  /** Bumped to fit the whole tree into view again. */
  fitRequest?: number;
  /** Ids of nodes whose reports are hidden. */
  collapsed?: ReadonlySet<string>;
}

const NODE_TYPES = { card: NodeCard };
const FIT = { padding: 0.08 } as const;
/** The smallest zoom at which labels read (a label line at 7 px and up, as the canvas tests measure it). */
export const READABLE_ZOOM = 0.32;
/** The zoom a node is brought to when it is centred from elsewhere (at least). */
const CENTRE_ZOOM = 1;
const NO_COLLAPSE: ReadonlySet<string> = new Set();
/** Trees this large get a minimap. */
export const MINIMAP_FROM = 12;
/** Arrow-key moves are saved once the keys rest this long. */
const KEY_SAVE_MS = 400;

export function FlowCanvas({ nodes, selected, canMove, onSelect, onMove, placed, fitRequest = 0, collapsed = NO_COLLAPSE }: FlowCanvasProps) {
  const [moves, dispatch] = useReducer(movesReducer, {});
  /** True once the first fit is done (the view then holds still until the user moves it). */
  const [fitted, setFitted] = useState(false);
  const flow = useRef<ReactFlowInstance<CardNode> | null>(null);
  const keyTimers = useRef(new Map<string, number>());
  /** Nodes being dragged right now (their last change with `dragging: false` is the drop). */
  const dragging = useRef(new Set<string>());

  useEffect(() => dispatch({ type: 'stored', nodes }), [nodes]);
  useEffect(() => {
    if (placed) dispatch({ type: 'place', points: placed });
  }, [placed]);
  useEffect(() => {
    if (fitRequest > 0) void flow.current?.fitView(FIT);
  }, [fitRequest]);
  useEffect(() => {
    const timers = keyTimers.current;
    return () => timers.forEach((timer) => window.clearTimeout(timer));
  }, []);

  const positions = useMemo(() => displayPositions(nodes.map((node) => ({ ...node, ...moves[node.id] }))), [nodes, moves]);
  const view = useMemo(() => collapsedView(nodes, collapsed), [nodes, collapsed]);
  const shown = useMemo(() => (view.hidden.size === 0 ? nodes : nodes.filter((node) => !view.hidden.has(node.id))), [nodes, view]);
  const flowNodes = useMemo(() => toFlowNodes(shown, positions, selected, canMove, view.hiddenBelow), [shown, positions, selected, canMove, view]);
  const edges = useMemo(() => toFlowEdges(shown, positions), [shown, positions]);
  const frame = useRef<HTMLDivElement>(null);

  // A node selected from elsewhere: brought to the middle at a readable size unless it is in view so already.
  const centred = useRef<string | undefined>(undefined);
  useEffect(() => {
    const instance = flow.current;
    if (!fitted || !instance || !selected || centred.current === selected) return;
    centred.current = selected;
    const node = nodes.find((candidate) => candidate.role_id === selected);
    const point = node ? positions.get(node.id) : undefined;
    const box = frame.current?.getBoundingClientRect();
    if (!point || !box) return;
    const { x, y, zoom } = instance.getViewport();
    const left = point.x * zoom + x - (NODE_W * zoom) / 2;
    const top = point.y * zoom + y - (NODE_H * zoom) / 2;
    const inView = left >= 0 && top >= 0 && left + NODE_W * zoom <= box.width && top + NODE_H * zoom <= box.height;
    if (inView && zoom >= READABLE_ZOOM) return;
    void instance.setCenter(point.x, point.y, { zoom: Math.max(zoom, CENTRE_ZOOM) });
  }, [selected, fitted, nodes, positions]);
  const byId = useMemo(() => new Map(nodes.map((node) => [node.id, node])), [nodes]);

  const save = (id: string, point: Point) => {
    const node = byId.get(id);
    if (!node) return;
    onMove(node.role_id, point).catch(() => dispatch({ type: 'revert', ids: [id] }));
  };

  const onNodesChange = (changes: NodeChange<CardNode>[]) => {
    for (const change of changes) {
      if (change.type === 'select' && change.selected) {
        const node = byId.get(change.id);
        if (node) onSelect(node.role_id);
      }
      if (change.type !== 'position' || !change.position || !canMove) continue;
      const point = { x: Math.round(change.position.x), y: Math.round(change.position.y) };
      dispatch({ type: 'move', id: change.id, point });
      if (change.dragging) {
        dragging.current.add(change.id);
        continue;
      }
      if (dragging.current.delete(change.id)) {
        save(change.id, point); // a drop
        continue;
      }
      // An arrow key: save once the keys rest.
      const timers = keyTimers.current;
      window.clearTimeout(timers.get(change.id));
      timers.set(
        change.id,
        window.setTimeout(() => {
          timers.delete(change.id);
          save(change.id, point);
        }, KEY_SAVE_MS),
      );
    }
  };

  return (
    <div className="flow-frame" ref={frame}>
      <ReactFlow<CardNode>
        nodes={flowNodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        nodeOrigin={[0.5, 0.5]}
        onNodesChange={onNodesChange}
        onInit={(instance) => {
          flow.current = instance;
          // Fitted once, when the tree first shows (queued until the nodes are measured); a
          // tree too large to read when fitted opens at its root instead, at a readable zoom.
          void instance.fitView(FIT).then(async () => {
            const box = frame.current?.getBoundingClientRect();
            const root = nodes.find((node) => node.parent_id === null);
            const at = root ? positions.get(root.id) : undefined;
            if (instance.getViewport().zoom < READABLE_ZOOM && box && at) {
              await instance.setCenter(at.x, at.y - NODE_H / 2 - 24 + box.height / 2 / READABLE_ZOOM, { zoom: READABLE_ZOOM });
            }
            centred.current = selected;
            setFitted(true);
          });
        }}
        minZoom={0.05}
        maxZoom={2}
        selectNodesOnDrag={false}
        nodesConnectable={false}
        elementsSelectable
        nodesDraggable={canMove}
        deleteKeyCode={null}
        multiSelectionKeyCode={null}
        selectionKeyCode={null}
        colorMode="system"
        proOptions={{ hideAttribution: true }}
        aria-label="Node tree"
        data-testid="canvas"
        data-fitted={fitted}
      >
        <Controls showInteractive={false} position="bottom-right" aria-label="Zoom" />
        {nodes.length >= MINIMAP_FROM ? <MiniMap pannable zoomable position="bottom-left" ariaLabel="Minimap of the tree" /> : null}
      </ReactFlow>
    </div>
  );
}
