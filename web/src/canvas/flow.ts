/**
 * The canvas as React Flow sees it: one node per org node at its shown position (box
 * centres, with `nodeOrigin` [0.5, 0.5]), one edge per parent link meeting the child at
 * its top or, in a stacked column, at its left side. While a node works on a task another
 * node delegated (`working_for`), the edge between them is marked (and drawn when the two
 * are not parent and child). Pure.
 */
import type { Edge, Node } from '@xyflow/react';
import type { OrgNode } from '../api/types';
import { NODE_H, NODE_W, edgeSide, stackedIds, type Point } from './layout';

/** The data of a canvas node: the org node, whether it is the selected one, and how many nodes below it are hidden (collapsed). */
export type CardData = { node: OrgNode; selected: boolean; hidden: number };

/** A canvas node. */
export type CardNode = Node<CardData, 'card'>;

/** Canvas nodes for org nodes at their positions; only operators and owners may drag. */
export function toFlowNodes(
  nodes: readonly OrgNode[],
  positions: ReadonlyMap<string, Point>,
  selected: string | undefined,
  canMove: boolean,
  hiddenBelow: ReadonlyMap<string, number> = new Map(),
): CardNode[] {
  return nodes.map((node) => {
    const position = positions.get(node.id) ?? { x: node.x, y: node.y };
    return {
      id: node.id,
      type: 'card',
      position,
      // Fixed size (the card's CSS size), also as measured: the minimap and the first fit
      // need it before any measuring, and a node object rebuilt by a poll would otherwise
      // count as unmeasured again, holding a queued fit back until something resizes.
      width: NODE_W,
      height: NODE_H,
      measured: { width: NODE_W, height: NODE_H },
      data: { node, selected: node.role_id === selected, hidden: hiddenBelow.get(node.id) ?? 0 },
      draggable: canMove,
      selectable: true,
      connectable: false,
      deletable: false,
      selected: node.role_id === selected,
      // Named by its visible text (label, role id, state), as a button that opens the node.
      ariaRole: 'button',
      // The shown position (box centre) is on the element too, for tools and tests.
      domAttributes: { 'data-role-id': node.role_id, 'data-x': position.x, 'data-y': position.y, 'aria-pressed': node.role_id === selected },
    };
  });
}

/**
 * What collapsing hides: the ids of every node below a collapsed one, and for each
 * collapsed node how many are hidden below it. Pure.
 */
export function collapsedView(nodes: readonly OrgNode[], collapsed: ReadonlySet<string>): { hidden: Set<string>; hiddenBelow: Map<string, number> } {
  const children = new Map<string, OrgNode[]>();
  for (const node of nodes) if (node.parent_id) children.set(node.parent_id, [...(children.get(node.parent_id) ?? []), node]);
  const hidden = new Set<string>();
  const hiddenBelow = new Map<string, number>();
  for (const id of collapsed) {
    let count = 0;
    const stack = [...(children.get(id) ?? [])];
    for (let next = stack.pop(); next; next = stack.pop()) {
      count++;
      hidden.add(next.id);
      stack.push(...(children.get(next.id) ?? []));
    }
    if (count > 0) hiddenBelow.set(id, count);
  }
  return { hidden, hiddenBelow };
}

/** An edge per parent link, and one per delegation running between nodes that are not parent and child. */
export function toFlowEdges(nodes: readonly OrgNode[], positions: ReadonlyMap<string, Point>): Edge[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const byRole = new Map(nodes.map((node) => [node.role_id, node]));
  const stacked = stackedIds(nodes);
  const edges: Edge[] = [];
  for (const node of nodes) {
    const parent = node.parent_id ? byId.get(node.parent_id) : undefined;
    const delegator = node.working_for ? byRole.get(node.working_for) : undefined;
    if (parent) {
      const side = edgeSide(positions.get(parent.id) ?? parent, positions.get(node.id) ?? node, stacked.has(node.id));
      const delegating = delegator?.id === parent.id;
      edges.push({
        id: `edge-${node.id}`,
        source: parent.id,
        target: node.id,
        sourceHandle: 'bottom',
        targetHandle: side,
        type: 'smoothstep',
        className: delegating ? 'edge edge-delegation' : 'edge',
        animated: delegating,
        ...(delegating ? { label: 'delegated' } : {}),
        focusable: false,
        selectable: false,
        ...(delegating ? { ariaLabel: `${parent.label} delegated a task to ${node.label}` } : {}),
      });
    }
    if (delegator && delegator.id !== parent?.id) {
      edges.push({
        id: `delegation-${node.id}`,
        source: delegator.id,
        target: node.id,
        sourceHandle: 'bottom',
        targetHandle: 'top',
        type: 'straight',
        className: 'edge edge-delegation',
        animated: true,
        label: 'delegated',
        focusable: false,
        selectable: false,
        ariaLabel: `${delegator.label} delegated a task to ${node.label}`,
      });
    }
  }
  return edges;
}
