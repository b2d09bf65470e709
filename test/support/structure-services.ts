/**
 * The structure services (registry, structures, nodes, members) wired over a given store,
 * with two small templates, as the unit tests of `src/core/structures` build them: a fresh
 * call on the same store folder is what a restart sees.
 */
import { systemClock } from '../../src/core/util/index.js';
import { NodeActivity } from '../../src/core/structures/activity.js';
import { MemberService } from '../../src/core/structures/members.js';
import { NodeService } from '../../src/core/structures/nodes.js';
import { StructureRegistry } from '../../src/core/structures/registry.js';
import type { StructureStore } from '../../src/core/structures/structure-store.js';
import { StructureService } from '../../src/core/structures/structures.js';
import type { Template } from '../../src/core/structures/templates.js';
import type { NodeRecord } from '../../src/core/structures/types.js';

/** `blank` (no node) and `pair` (team-lead over team-dev). */
export const TEST_TEMPLATES = new Map<string, Template>([
  ['blank', { name: 'blank', description: '', nodes: [] }],
  [
    'pair',
    {
      name: 'pair',
      description: '',
      nodes: [
        { role_id: 'team-lead', label: 'Lead', parent: null, x: 0, y: 0, starting_context: 'lead' },
        { role_id: 'team-dev', label: 'Dev', parent: 'team-lead', x: 0, y: 100, starting_context: 'dev' },
      ],
    },
  ],
]);

/** Loads the registry from `store` and wires the services over it; `dir` is the structures folder (archives). */
export async function structureServices(store: StructureStore, dir: string, options: { onArchived?: (structureId: string, node: NodeRecord) => Promise<void> } = {}) {
  const registry = new StructureRegistry(store, systemClock);
  await registry.load();
  const activity = new NodeActivity();
  return {
    registry,
    activity,
    structures: new StructureService({ registry, templates: TEST_TEMPLATES, activity }),
    nodes: new NodeService({ registry, store, activity, dir, ...(options.onArchived ? { onArchived: options.onArchived } : {}) }),
    members: new MemberService(registry),
  };
}
