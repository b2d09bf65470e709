/**
 * Positions changed on this screen and not yet confirmed by the server: a node being
 * dragged, one just dropped (shown at its new spot until the next load reports it), or
 * a whole tidy-up. Pure reducer; the canvas shows these over the stored positions.
 */
import type { Point } from './layout';

/** Local positions by node id. */
export type Moves = Readonly<Record<string, Point>>;

/** Actions on the local positions. */
export type MoveAction =
  | { type: 'move'; id: string; point: Point }
  | { type: 'place'; points: ReadonlyMap<string, Point> }
  /** The server's positions arrived: local ones it now reports give way. */
  | { type: 'stored'; nodes: readonly ({ id: string } & Point)[] }
  /** A save failed: the node goes back to its stored position. */
  | { type: 'revert'; ids: readonly string[] };

/** Applies an action. */
export function movesReducer(state: Moves, action: MoveAction): Moves {
  switch (action.type) {
    case 'move':
      return { ...state, [action.id]: action.point };
    case 'place':
      return { ...state, ...Object.fromEntries(action.points) };
    case 'stored': {
      let next: Record<string, Point> | undefined;
      for (const node of action.nodes) {
        const local = state[node.id];
        if (local && local.x === node.x && local.y === node.y) {
          next ??= { ...state };
          delete next[node.id];
        }
      }
      return next ?? state;
    }
    case 'revert': {
      const next = { ...state };
      for (const id of action.ids) delete next[id];
      return next;
    }
  }
}
