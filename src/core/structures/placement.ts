/**
 * Where a node added without a position goes: one rank below its parent, right of the
 * parent's last child (under the parent when it has none), moved further right until it
 * is clear of every node of the structure. Steps are the bundled templates' spacing, so a
 * node placed here sits on the same grid as a template's and never covers another (the
 * web canvas shows a node stored on top of another elsewhere, which would look moved).
 */
import type { NodeRecord } from './types.js';

/** Distance between the centres of two neighbouring nodes of a rank, and between two ranks (the templates' spacing). */
export const NODE_SPACING = { dx: 300, dy: 180 } as const;

/** A point of the canvas (a node's centre). */
export interface Spot {
  x: number;
  y: number;
}

/** True when a node centred on `spot` would come closer to `node` than one grid step both ways. */
function crowds(spot: Spot, node: Spot): boolean {
  return Math.abs(spot.x - node.x) < NODE_SPACING.dx && Math.abs(spot.y - node.y) < NODE_SPACING.dy;
}

/**
 * The spot of a new child of `parent` among `agents` (the structure's live nodes): below
 * the parent, right of its last child, clear of every node. Each step right passes at
 * least one node, so it ends within `agents.length` steps.
 */
export function spotForNewChild(agents: readonly NodeRecord[], parent: NodeRecord): Spot {
  const children = agents.filter((node) => node.parent_id === parent.id);
  const spot: Spot = {
    x: children.length === 0 ? parent.x : Math.max(...children.map((child) => child.x)) + NODE_SPACING.dx,
    y: parent.y + NODE_SPACING.dy,
  };
  for (let step = 0; step <= agents.length; step++) {
    const blocking = agents.filter((node) => crowds(spot, node));
    if (blocking.length === 0) break;
    // Past the rightmost node in the way, in one go.
    spot.x = Math.max(...blocking.map((node) => node.x)) + NODE_SPACING.dx;
  }
  return spot;
}
