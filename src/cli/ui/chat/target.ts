/**
 * Choosing whom to chat with: the structure and node named on the command line, or
 * picked from lists when omitted. A pure reducer plus the hook that loads the lists.
 */
import { useCallback, useEffect, useReducer } from 'react';
import type { OrgClient } from '../../../client/index.js';
import type { Node, StructureDetail, StructureSummary } from '../../../client/types.js';
import { findNode, findStructureDetail } from '../../resolve.js';

/** Where the choice stands. */
export type TargetState =
  | { phase: 'loading' }
  | { phase: 'pick-structure'; structures: StructureSummary[] }
  | { phase: 'pick-node'; structure: StructureDetail }
  | { phase: 'ready'; structure: StructureDetail; node: Node }
  | { phase: 'failed'; message: string };

/** Steps of the choice. */
export type TargetAction =
  | { type: 'structures'; structures: StructureSummary[] }
  | { type: 'structure'; structure: StructureDetail }
  | { type: 'node'; node: Node }
  | { type: 'failed'; message: string };

/** The reducer of the choice. */
export function targetReducer(state: TargetState, action: TargetAction): TargetState {
  switch (action.type) {
    case 'structures':
      if (action.structures.length === 0) return { phase: 'failed', message: 'you have no structure yet: create one with  org structures create NAME --template exec-team' };
      return { phase: 'pick-structure', structures: action.structures };
    case 'structure':
      if (action.structure.agents.length === 0) return { phase: 'failed', message: `${action.structure.name} has no nodes yet: add one with  org agents add` };
      if (action.structure.agents.length === 1) return { phase: 'ready', structure: action.structure, node: action.structure.agents[0]! };
      return { phase: 'pick-node', structure: action.structure };
    case 'node':
      return state.phase === 'pick-node' || state.phase === 'ready' ? { phase: 'ready', structure: state.structure, node: action.node } : state;
    case 'failed':
      return { phase: 'failed', message: action.message };
  }
}

/** The part of the client the choice uses. */
export type TargetClient = Pick<OrgClient, 'listStructures' | 'getStructure'>;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Resolves the named structure and node, or loads the lists to pick from. */
export function useTarget(client: TargetClient, structureRef?: string, roleRef?: string) {
  const [state, dispatch] = useReducer(targetReducer, { phase: 'loading' });
  useEffect(() => {
    let live = true;
    const load = async () => {
      if (structureRef) {
        const structure = await findStructureDetail(client, structureRef);
        const node = roleRef ? findNode(structure, roleRef) : undefined;
        if (!live) return;
        dispatch({ type: 'structure', structure });
        if (node) dispatch({ type: 'node', node });
        return;
      }
      const { structures } = await client.listStructures();
      if (!live) return;
      if (structures.length === 1) dispatch({ type: 'structure', structure: await client.getStructure(structures[0]!.id) });
      else dispatch({ type: 'structures', structures });
    };
    load().catch((error: unknown) => live && dispatch({ type: 'failed', message: messageOf(error) }));
    return () => {
      live = false;
    };
  }, [client, structureRef, roleRef]);

  const chooseStructure = useCallback(
    (id: string) => {
      client.getStructure(id).then(
        (structure) => dispatch({ type: 'structure', structure }),
        (error: unknown) => dispatch({ type: 'failed', message: messageOf(error) }),
      );
    },
    [client],
  );
  const chooseNode = useCallback((node: Node) => dispatch({ type: 'node', node }), []);
  return { state, chooseStructure, chooseNode };
}
