/**
 * Where nodes go on the canvas. Positions are box centres in canvas units, as the API
 * stores them. The tree layout is d3-hierarchy's tidy tree (top to bottom, ranks spaced as the
 * bundled templates space them), made compact the way org charts are: the leaf reports
 * of a manager with several of them are stacked in an indented column below it instead
 * of spreading in one wide row, so a 40-node tree keeps a shape close to the screen's
 * and its labels stay readable when it fits.
 *
 * A node "has no stored position" when it sits at the origin on top of another node
 * (nodes added through the API or CLI without x/y all land at 0,0): those are placed
 * next to their parent where the tree layout would put them, clear of every other node.
 * Pure functions; tested without a browser.
 */
import { hierarchy, tree } from 'd3-hierarchy';

/** Width of a node box in canvas units. */
export const NODE_W = 232;
/** Height of a node box in canvas units. */
export const NODE_H = 64;
/** A manager with at least this many leaf reports gets them stacked in a column. */
export const STACK_MIN = 3;
/** How far right of the manager's centre a stacked column's boxes start. */
export const STACK_INDENT = 24;
/** Vertical distance between the boxes of a stacked column. */
export const STACK_STEP = NODE_H + 16;
/** Distance between the centres of two ranks (as the bundled templates space them). */
export const RANK_STEP = 180;
/** Horizontal gap between neighbouring boxes (templates put centres 300 apart). */
export const GAP_X = 68;

/** A point on the canvas (a box centre). */
export interface Point {
  x: number;
  y: number;
}

/** What the layout needs of a node. */
export interface LayoutNode extends Point {
  id: string;
  parent_id: string | null;
  created_at: string;
}

/** True when two node boxes centred on `a` and `b` overlap. */
export function overlaps(a: Point, b: Point): boolean {
  return Math.abs(a.x - b.x) < NODE_W && Math.abs(a.y - b.y) < NODE_H;
}

/** Children per parent id, each list in the order they have on the canvas (see {@link byPlace}). */
function childrenOf(nodes: readonly LayoutNode[]): Map<string, LayoutNode[]> {
  const byParent = new Map<string, LayoutNode[]>();
  for (const node of [...nodes].sort(byPlace)) {
    if (!node.parent_id) continue;
    const list = byParent.get(node.parent_id) ?? [];
    list.push(node);
    byParent.set(node.parent_id, list);
  }
  return byParent;
}

/**
 * Siblings in the order they have on the canvas: left to right, then top to bottom (a
 * stacked column), then by creation and id (nodes not placed yet, or template nodes
 * created at the same instant): the layout keeps the order the author sees.
 */
function byPlace(a: LayoutNode, b: LayoutNode): number {
  return a.x - b.x || a.y - b.y || byCreation(a, b);
}

function byCreation(a: LayoutNode, b: LayoutNode): number {
  return a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1;
}

/**
 * The stacked columns: for each manager with at least `STACK_MIN` leaf reports, those
 * leaves in their order on the canvas (its other reports are laid out as usual, below the column).
 */
function stackColumns(nodes: readonly LayoutNode[], children = childrenOf(nodes)): Map<string, LayoutNode[]> {
  const ids = new Set(nodes.map((node) => node.id));
  const columns = new Map<string, LayoutNode[]>();
  for (const [parent, list] of children) {
    const leaves = list.filter((child) => !children.has(child.id));
    if (ids.has(parent) && leaves.length >= STACK_MIN) columns.set(parent, leaves);
  }
  return columns;
}

/** Ids of the nodes the tree layout stacks in a column under their manager. */
export function stackedIds(nodes: readonly LayoutNode[]): Set<string> {
  return new Set([...stackColumns(nodes).values()].flat().map((leaf) => leaf.id));
}

/** Extra width a manager's box reserves on its right for its stacked column. */
const COLUMN_OVERHANG = STACK_INDENT + NODE_W - NODE_W / 2;

/**
 * The compact tree layout of every node, with the root's centre at (0, 0). A manager
 * whose reports are all leaves (at least `STACK_MIN`) has them stacked below it, each
 * `STACK_INDENT` right of its centre; d3-hierarchy's tidy tree (Reingold–Tilford, linear
 * in the number of nodes) lays out the rest, with the manager and its column as one wide,
 * tall box. Each depth starts below the tallest box of the depth above, and siblings keep
 * the order they have on the canvas now (left to right, then by creation).
 */
export function treeLayout(nodes: readonly LayoutNode[]): Map<string, Point> {
  const children = childrenOf(nodes);
  const ids = new Set(nodes.map((node) => node.id));
  const columns = stackColumns(nodes, children);
  const stacked = new Set([...columns.values()].flat().map((leaf) => leaf.id));

  // The tree d3 lays out: laid-out nodes only, orphans and second roots under one virtual root.
  const roots = nodes.filter((node) => !node.parent_id || !ids.has(node.parent_id)).sort(byPlace);
  const VIRTUAL = '\u0000root';
  const kids = (id: string): LayoutNode[] => (id === VIRTUAL ? roots : (children.get(id) ?? []).filter((child) => !stacked.has(child.id)));
  const root = hierarchy<{ id: string }>({ id: VIRTUAL }, (datum) => kids(datum.id));
  const width = (id: string) => (columns.has(id) ? NODE_W + COLUMN_OVERHANG : NODE_W);
  const height = (id: string) => NODE_H + (columns.get(id)?.length ?? 0) * STACK_STEP;
  // x in canvas units: a node size of 1 and separations in units.
  tree<{ id: string }>()
    .nodeSize([1, 1])
    .separation((a, b) => (width(a.data.id) + width(b.data.id)) / 2 + GAP_X)(root);

  // Each depth's top: below the tallest box of the depth above (the virtual root is depth 0).
  const tallest: number[] = [];
  root.each((entry) => {
    if (entry.depth > 0) tallest[entry.depth] = Math.max(tallest[entry.depth] ?? 0, height(entry.data.id));
  });
  const tops: number[] = [0, 0];
  for (let depth = 2; depth < tallest.length; depth++) tops[depth] = tops[depth - 1]! + (tallest[depth - 1] ?? NODE_H) + RANK_STEP - NODE_H;

  const raw = new Map<string, Point>();
  root.each((entry) => {
    if (entry.depth === 0) return;
    const x = columns.has(entry.data.id) ? (entry.x ?? 0) - COLUMN_OVERHANG / 2 : (entry.x ?? 0);
    raw.set(entry.data.id, { x, y: tops[entry.depth]! + NODE_H / 2 });
  });
  for (const [parent, column] of columns) {
    const at = raw.get(parent)!;
    column.forEach((leaf, index) => raw.set(leaf.id, { x: at.x + STACK_INDENT + NODE_W / 2, y: at.y + (index + 1) * STACK_STEP }));
  }
  const origin = roots[0] ? raw.get(roots[0].id)! : { x: 0, y: 0 };
  return new Map([...raw].map(([id, point]) => [id, { x: Math.round(point.x - origin.x), y: Math.round(point.y - origin.y) }]));
}

/**
 * Ids of nodes without a place of their own: on top of a node created before them (nodes
 * added without x/y land at the origin, or wherever the server put them, and may cover
 * another). The first of overlapping nodes keeps its place (a template's root at 0,0).
 */
export function unplaced(nodes: readonly LayoutNode[]): Set<string> {
  const kept: LayoutNode[] = [];
  const out = new Set<string>();
  for (const node of [...nodes].sort(byCreation)) {
    if (kept.some((other) => overlaps(node, other))) out.add(node.id);
    else kept.push(node);
  }
  return out;
}

/**
 * The position of every node as shown: stored positions as they are, and nodes without
 * one (`missing`, by default those of {@link unplaced}) placed at the end of the row of
 * their placed siblings, or else where the tree layout puts them relative to their
 * parent; either way moved right until clear of every node already shown.
 */
export function displayPositions(nodes: readonly LayoutNode[], missing: ReadonlySet<string> = unplaced(nodes)): Map<string, Point> {
  const shown = new Map<string, Point>();
  for (const node of nodes) if (!missing.has(node.id)) shown.set(node.id, { x: node.x, y: node.y });
  if (missing.size === 0) return shown;
  const ideal = treeLayout(nodes);
  const byId = new Map(nodes.map((node) => [node.id, node]));
  // Parents before children: a missing node's parent is shown before it is placed.
  const depth = (node: LayoutNode): number => (node.parent_id && byId.has(node.parent_id) ? 1 + depth(byId.get(node.parent_id)!) : 0);
  const queue = nodes.filter((node) => missing.has(node.id)).sort((a, b) => depth(a) - depth(b) || byCreation(a, b));
  for (const node of queue) {
    const parent = node.parent_id ? byId.get(node.parent_id) : undefined;
    const siblings = nodes.filter((other) => other.id !== node.id && other.parent_id === node.parent_id && shown.has(other.id));
    let spot: Point;
    if (parent && siblings.some((sibling) => !missing.has(sibling.id))) {
      // Beside reports the author placed: at the end of their row.
      const last = siblings.map((sibling) => shown.get(sibling.id)!).reduce((right, point) => (point.x > right.x ? point : right));
      spot = { x: last.x + NODE_W + GAP_X, y: last.y };
    } else {
      // Where the tree layout puts it relative to its parent as shown.
      const anchor = parent && shown.has(parent.id) ? shown.get(parent.id)! : { x: 0, y: 0 };
      const offset = parent ? { x: ideal.get(node.id)!.x - ideal.get(parent.id)!.x, y: ideal.get(node.id)!.y - ideal.get(parent.id)!.y } : ideal.get(node.id)!;
      spot = { x: anchor.x + offset.x, y: anchor.y + offset.y };
    }
    for (let tries = 0; tries < 500 && [...shown.values()].some((other) => overlaps(spot, other)); tries++) spot = { x: spot.x + NODE_W + GAP_X, y: spot.y };
    shown.set(node.id, spot);
  }
  return shown;
}

/**
 * Positions for "Tidy up": the whole tree laid out again, kept where the root is now so
 * the picture does not leave the screen.
 */
export function tidyPositions(nodes: readonly LayoutNode[]): Map<string, Point> {
  const layout = treeLayout(nodes);
  const root = nodes.find((node) => !node.parent_id);
  const anchor = root ? { x: root.x, y: root.y } : { x: 0, y: 0 };
  return new Map([...layout].map(([id, point]) => [id, { x: point.x + anchor.x, y: point.y + anchor.y }]));
}

/**
 * How an edge meets its child: at the left side for a box of a stacked column that still
 * sits below its manager, just right of its centre (where the column's line runs down),
 * else at the top.
 */
export function edgeSide(parent: Point, child: Point, stacked: boolean): 'top' | 'left' {
  const left = child.x - NODE_W / 2;
  return stacked && child.y > parent.y + NODE_H / 2 && left >= parent.x - STACK_INDENT && left <= parent.x + NODE_W / 2 ? 'left' : 'top';
}

/** Where a new child of `parentId` would be shown (the root's spot when there is no node yet). */
export function spotForNewChild(nodes: readonly LayoutNode[], parentId: string | null): Point {
  if (nodes.length === 0 || !parentId) return { x: 0, y: 0 };
  const probe: LayoutNode = { id: '\u0000new', parent_id: parentId, x: 0, y: 0, created_at: '\uffff' };
  const current = displayPositions(nodes);
  const shown = displayPositions([...nodes.map((node) => ({ ...node, ...current.get(node.id) })), probe], new Set([probe.id]));
  return shown.get(probe.id) ?? { x: 0, y: 0 };
}
