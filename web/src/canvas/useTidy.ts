/**
 * "Tidy up": lays the whole tree out again (the compact tree layout, anchored at the
 * root), shows it at once, saves every position that changed with PATCH x/y, fits the
 * view, and offers Undo (the old positions saved back).
 */
import { useState } from 'react';
import type { OrgNode } from '../api/types';
import { useToast } from '../ui/Toasts';
import type { Point } from './layout';

/**
 * Saves at most this many positions at once. The server commits the changes of one
 * structure that arrive together as one journal write, so a few more in flight means
 * fewer writes; the page is re-read once, at the end, not after each save.
 */
const PARALLEL = 16;

/** What the hook needs from the page. */
export interface TidyOptions {
  nodes: readonly OrgNode[];
  /** Saves one node's position (by role id), without touching what the page shows. */
  save: (roleId: string, point: Point) => Promise<unknown>;
  reload: () => Promise<void>;
  onError: (error: unknown) => void;
}

/** Saves positions, a few at a time; the first failure stops the rest and is thrown. */
async function saveAll(moves: readonly (readonly [OrgNode, Point])[], save: TidyOptions['save']): Promise<void> {
  const queue = [...moves];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await save(next[0].role_id, next[1]);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker));
}

/** The tidy-up action and what the canvas shows meanwhile. */
export function useTidy({ nodes, save, reload, onError }: TidyOptions) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [placed, setPlaced] = useState<ReadonlyMap<string, Point> | undefined>(undefined);
  const [fitRequest, setFitRequest] = useState(0);

  /** Shows the positions at once, fits the view, and saves them. */
  const apply = async (moves: readonly (readonly [OrgNode, Point])[]) => {
    setPlaced(new Map(moves.map(([node, point]) => [node.id, point])));
    setFitRequest((count) => count + 1);
    await saveAll(moves, save);
  };

  const run = async () => {
    setBusy(true);
    try {
      const { tidyPositions } = await import('./layout');
      const target = tidyPositions(nodes);
      const moves = nodes.map((node) => [node, target.get(node.id)!] as const).filter(([node, point]) => point.x !== node.x || point.y !== node.y);
      await apply(moves);
      await reload();
      const back = moves.map(([node]) => [node, { x: node.x, y: node.y }] as const);
      toast({
        tone: 'success',
        message: moves.length === 0 ? 'The tree was already tidy.' : `Tidied up: ${moves.length} node${moves.length === 1 ? '' : 's'} moved.`,
        ...(moves.length === 0
          ? {}
          : {
              action: {
                label: 'Undo',
                run: async () => {
                  await apply(back);
                  await reload();
                },
              },
            }),
      });
    } catch (failure) {
      onError(failure);
      await reload().catch(() => undefined);
    } finally {
      setBusy(false);
    }
  };

  return { run, busy, placed, fitRequest };
}
