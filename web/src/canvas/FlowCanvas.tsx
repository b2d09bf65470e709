/**
 * The structure canvas on React Flow: nodes at their stored positions (nodes without
 * one laid out beside their parent), pan and zoom anchored on the pointer, a minimap
 * for larger trees, and moves by drag or by arrow keys on a selected node, each saved
 * with PATCH x/y. The view is fitted once when the tree first shows and on request
 * (`fitRequest`), never after a move, so nothing jumps when a node is dropped.
 */
import { Controls, MiniMap, ReactFlow, type NodeChange, type ReactFlowInstance } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './flow.css';
import { useEffect, useMemo, useReducer, useRef, useState } from 'react';
import type { OrgNode } from '../api/types';
import { toFlowEdges, toFlowNodes, type CardNode } from './flow';
import { displayPositions, type Point } from './layout';
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
}

const NODE_TYPES = { card: NodeCard };
const FIT = { padding: 0.08 } as const;
/** Trees this large get a minimap. */
export const MINIMAP_FROM = 12;
/** Arrow-key moves are saved once the keys rest this long. */
const KEY_SAVE_MS = 400;

export function FlowCanvas({ nodes, selected, canMove, onSelect, onMove, placed, fitRequest = 0 }: FlowCanvasProps) {
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
  const flowNodes = useMemo(() => toFlowNodes(nodes, positions, selected, canMove), [nodes, positions, selected, canMove]);
  const edges = useMemo(() => toFlowEdges(nodes, positions), [nodes, positions]);
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
    <ReactFlow<CardNode>
      nodes={flowNodes}
      edges={edges}
      nodeTypes={NODE_TYPES}
      nodeOrigin={[0.5, 0.5]}
      onNodesChange={onNodesChange}
      onInit={(instance) => {
        flow.current = instance;
        // Fitted once, when the tree first shows (queued until the nodes are measured).
        void instance.fitView(FIT).then(() => setFitted(true));
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
  );
}
