/**
 * The canvas layout without a browser: the compact tree layout (no overlaps, leaves
 * stacked under their manager, a 40-node tree keeps a screen-like shape), nodes without
 * a stored position placed beside their parent clear of every other node, "Tidy up"
 * anchored at the root, and how edges meet their child.
 */
import { describe, expect, it } from 'vitest';
import { NODE_H, NODE_W, RANK_STEP, STACK_INDENT, displayPositions, edgeSide, overlaps, spotForNewChild, stackedIds, tidyPositions, treeLayout, unplaced, type LayoutNode, type Point } from '../src/canvas/layout';
import { movesReducer } from '../src/canvas/moves';
import { treeOrder } from '../src/canvas/NodeList';

let clock = 0;
const node = (id: string, parent: string | null, x = 0, y = 0): LayoutNode => ({ id, parent_id: parent, x, y, created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString() });

/** A tree like an organisation: a root, `managers` managers, each with `reports` leaf reports. */
function org(managers: number, reports: number): LayoutNode[] {
  const nodes = [node('root', null)];
  for (let m = 0; m < managers; m++) {
    nodes.push(node(`m${m}`, 'root'));
    for (let r = 0; r < reports; r++) nodes.push(node(`m${m}-r${r}`, `m${m}`));
  }
  return nodes;
}

function expectNoOverlap(points: ReadonlyMap<string, Point>): void {
  const list = [...points];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) expect(overlaps(list[i]![1], list[j]![1]), `${list[i]![0]} overlaps ${list[j]![0]}`).toBe(false);
  }
}

function bounds(points: Iterable<Point>) {
  const all = [...points];
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  return { width: Math.max(...xs) - Math.min(...xs) + NODE_W, height: Math.max(...ys) - Math.min(...ys) + NODE_H };
}

describe('treeLayout keeps what the author sees', () => {
  it('keeps siblings in their order on the canvas, also when they were created at the same instant (a template)', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const same = (id: string, parent: string | null, x: number): LayoutNode => ({ id, parent_id: parent, x, y: parent ? RANK_STEP : 0, created_at: at });
    // Ids in the reverse of the shown order, all created together: only the positions tell the order.
    const nodes = [same('root', null, 0), same('z-first', 'root', -600), same('m-second', 'root', 0), same('a-third', 'root', 600), same('q-child', 'z-first', -600)];
    const tidied = tidyPositions(nodes);
    const xs = ['z-first', 'm-second', 'a-third'].map((id) => tidied.get(id)!.x);
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    // Swapped on the canvas, swapped by the layout.
    const swapped = nodes.map((entry) => (entry.id === 'z-first' ? { ...entry, x: 900 } : entry));
    const again = tidyPositions(swapped);
    expect(again.get('z-first')!.x).toBeGreaterThan(again.get('a-third')!.x);
  });

  it('lays out 500 nodes of any shape without an overlap', () => {
    for (const fan of [2, 3, 7]) {
      const nodes: LayoutNode[] = [node('n0', null)];
      for (let i = 1; i < 500; i++) nodes.push(node(`n${i}`, `n${Math.floor((i - 1) / fan)}`));
      const layout = treeLayout(nodes);
      expect(layout.size).toBe(500);
      expectNoOverlap(layout);
      // Every report is below its manager.
      for (const entry of nodes) if (entry.parent_id) expect(layout.get(entry.id)!.y, entry.id).toBeGreaterThan(layout.get(entry.parent_id)!.y);
    }
  });
});

describe('nodes stored on top of others anywhere', () => {
  it('are shown clear of them, not only at the origin (a server or client may place a node over another)', () => {
    const nodes = [node('root', null), node('a', 'root', 400, RANK_STEP), node('b', 'root', 420, RANK_STEP + 10)];
    expect([...unplaced(nodes)]).toEqual(['b']);
    expectNoOverlap(displayPositions(nodes));
    expect(displayPositions(nodes).get('a')).toEqual({ x: 400, y: RANK_STEP });
  });
});

describe('treeLayout', () => {
  it('puts the root at the origin and every node in a box of its own', () => {
    const layout = treeLayout(org(3, 2));
    expect(layout.get('root')).toEqual({ x: 0, y: 0 });
    expect(layout.size).toBe(10);
    expectNoOverlap(layout);
    // Ranks are spaced as the templates space them.
    expect(layout.get('m0')!.y).toBe(RANK_STEP);
  });

  it('stacks the leaf reports of a manager with several in a column, indented right of it', () => {
    const layout = treeLayout(org(2, 4));
    const manager = layout.get('m0')!;
    const column = [0, 1, 2, 3].map((r) => layout.get(`m0-r${r}`)!);
    for (const [index, leaf] of column.entries()) {
      expect(leaf.x).toBe(manager.x + STACK_INDENT + NODE_W / 2);
      expect(leaf.y).toBeGreaterThan(index === 0 ? manager.y : column[index - 1]!.y);
      expect(edgeSide(manager, leaf, true)).toBe('left');
    }
    expect(edgeSide({ x: 0, y: 0 }, manager, false)).toBe('top');
    expect(stackedIds(org(2, 4)).size).toBe(8);
    // A leaf dragged out of the column, left or right, is met at the top again.
    expect(edgeSide(manager, { x: manager.x + 600, y: manager.y + 200 }, true)).toBe('top');
    // A leaf dragged far to the left of its manager is met at the top again.
    expect(edgeSide(manager, { x: manager.x - 400, y: manager.y + 200 }, true)).toBe('top');
    expectNoOverlap(layout);
  });

  it('keeps a 40-node tree close to a screen’s shape (not a strip) so it fits readably', () => {
    const nodes = org(6, 5).concat(node('m0-r0-x', 'm0-r0'), node('m1-r0-x', 'm1-r0'), node('m2-r1-x', 'm2-r1'));
    expect(nodes.length).toBe(40);
    const layout = treeLayout(nodes);
    expectNoOverlap(layout);
    const { width, height } = bounds(layout.values());
    // A 1,200 × 700 canvas shows it at a zoom of at least 0.45 (labels of 15 units stay ≥ 6.75 px).
    expect(Math.min(1200 / width, 700 / height)).toBeGreaterThan(0.45);
  });
});

describe('nodes without a stored position', () => {
  const template = [node('ceo', null, 0, 0), node('cfo', 'ceo', -450, 180), node('cto', 'ceo', -150, 180), node('coo', 'ceo', 150, 180), node('cmo', 'ceo', 450, 180), node('ctl', 'cfo', -450, 360)];

  it('are the ones added at the origin on top of an earlier node (the root keeps its spot)', () => {
    const added = [...template, node('a1', 'ceo'), node('a2', 'cto'), node('a3', 'cto')];
    expect([...unplaced(added)].sort()).toEqual(['a1', 'a2', 'a3']);
    expect(unplaced(template).size).toBe(0);
    // A node dragged to the origin on purpose, with nothing under it, keeps it.
    expect(unplaced([node('solo', null, 500, 500), node('kid', 'solo')]).size).toBe(0);
  });

  it('are shown beside their parent, clear of every other node; stored ones do not move', () => {
    const added = [...template, node('a1', 'ceo'), node('a2', 'cto'), node('a3', 'cto'), node('a4', 'a2'), node('a5', 'cmo')];
    const shown = displayPositions(added);
    expectNoOverlap(shown);
    for (const stored of template) expect(shown.get(stored.id)).toEqual({ x: stored.x, y: stored.y });
    // Beside the reports the author placed: at the end of their row.
    expect(shown.get('a1')).toEqual({ x: 450 + NODE_W + 68, y: 180 });
    expect(shown.get('a5')!.y).toBeGreaterThan(shown.get('cmo')!.y);
    // Children below their parent.
    expect(shown.get('a2')!.y).toBeGreaterThan(shown.get('cto')!.y);
    expect(shown.get('a4')!.y).toBeGreaterThan(shown.get('a2')!.y);
  });

  it('get a spot when added from the UI without one', () => {
    const spot = spotForNewChild(template, 'cto');
    expect(spot.y).toBeGreaterThan(180);
    for (const other of template) expect(overlaps(spot, other)).toBe(false);
    expect(spotForNewChild([], null)).toEqual({ x: 0, y: 0 });
  });
});

describe('tidyPositions', () => {
  it('lays the whole tree out again where the root is now', () => {
    const nodes = [node('r', null, 1000, -200), node('a', 'r', 1000, -200), node('b', 'r', 3, 7), node('c', 'a', 3, 7)];
    const tidy = tidyPositions(nodes);
    expect(tidy.get('r')).toEqual({ x: 1000, y: -200 });
    expectNoOverlap(tidy);
  });
});

describe('local moves', () => {
  it('show a move until the server reports it, and put a failed one back', () => {
    let moves = movesReducer({}, { type: 'move', id: 'a', point: { x: 5, y: 6 } });
    moves = movesReducer(moves, { type: 'move', id: 'b', point: { x: 1, y: 1 } });
    moves = movesReducer(moves, { type: 'stored', nodes: [{ id: 'a', x: 5, y: 6 }, { id: 'b', x: 0, y: 0 }] });
    expect(moves).toEqual({ b: { x: 1, y: 1 } });
    expect(movesReducer(moves, { type: 'revert', ids: ['b'] })).toEqual({});
    const same = movesReducer(moves, { type: 'stored', nodes: [] });
    expect(same).toBe(moves);
    expect(movesReducer({}, { type: 'place', points: new Map([['c', { x: 2, y: 3 }]]) })).toEqual({ c: { x: 2, y: 3 } });
  });
});

describe('the node list', () => {
  it('orders nodes depth first with their depth', () => {
    const base = { label: '', role_id: '', state: 'idle', starting_context: '', container_url: null, created_at: '' } as const;
    const list = treeOrder([
      { ...base, id: 'b', parent_id: 'a', x: 0, y: 0 },
      { ...base, id: 'a', parent_id: null, x: 0, y: 0 },
      { ...base, id: 'c', parent_id: 'b', x: 0, y: 0 },
      { ...base, id: 'd', parent_id: 'a', x: 0, y: 0 },
    ]);
    expect(list.map(({ node, depth }) => `${node.id}${depth}`)).toEqual(['a0', 'b1', 'c2', 'd1']);
  });
});
