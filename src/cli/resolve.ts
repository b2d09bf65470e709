/**
 * Finding structures and nodes from what a person types: an id, an id prefix, a name
 * (structures) or a role id or label (nodes), case-insensitive, ambiguity reported.
 */
import type { OrgClient } from '../client/index.js';
import type { Node, StructureDetail, StructureSummary } from '../client/types.js';
import { invalid, notFound } from '../core/errors.js';
import { RUN_PREFIX_MIN } from '../core/schemas/chat.js';

/** Picks the one entry matching `ref`, by exact key first, then by the fuzzier rules. */
function pick<T>(items: readonly T[], ref: string, keys: ((item: T) => string)[], what: string, describe: (item: T) => string): T {
  const lower = ref.toLowerCase();
  for (const key of keys) {
    const exact = items.filter((item) => key(item).toLowerCase() === lower);
    if (exact.length === 1) return exact[0]!;
    if (exact.length > 1) throw invalid(`"${ref}" names several ${what}s: ${exact.map(describe).join(', ')}`);
  }
  const prefixed = items.filter((item) => keys.some((key) => key(item).toLowerCase().startsWith(lower)));
  if (prefixed.length === 1) return prefixed[0]!;
  if (prefixed.length > 1) throw invalid(`"${ref}" matches several ${what}s: ${prefixed.map(describe).join(', ')}`);
  throw notFound(`no ${what} "${ref}"${items.length ? ` (there are: ${items.map(describe).join(', ')})` : ''}`);
}

/** Describes a structure for messages: `Demo (6f0c1a2b)`. */
export function describeStructure(structure: { id: string; name: string }): string {
  return `${structure.name} (${structure.id.slice(0, 8)})`;
}

/**
 * Finds a structure by id, id prefix or name. Without `ref` it takes `ORG_STRUCTURE`,
 * or the only structure the caller has.
 */
export async function findStructure(client: Pick<OrgClient, 'listStructures'>, ref: string | undefined, env: NodeJS.ProcessEnv = {}): Promise<StructureSummary> {
  const { structures } = await client.listStructures();
  const wanted = ref ?? env.ORG_STRUCTURE;
  if (wanted) return pick(structures, wanted, [(s) => s.id, (s) => s.name], 'structure', describeStructure);
  if (structures.length === 1) return structures[0]!;
  if (structures.length === 0) throw notFound('you have no structure yet: create one with  org structures create NAME --template exec-team');
  throw invalid(`you have several structures; name one with --structure (or ORG_STRUCTURE): ${structures.map(describeStructure).join(', ')}`);
}

/** Finds a structure and loads its detail. */
export async function findStructureDetail(client: Pick<OrgClient, 'listStructures' | 'getStructure'>, ref: string | undefined, env: NodeJS.ProcessEnv = {}): Promise<StructureDetail> {
  const summary = await findStructure(client, ref, env);
  return client.getStructure(summary.id);
}

/** Finds a node of a structure by role id or label. */
export function findNode(structure: StructureDetail, ref: string): Node {
  return pick(structure.agents, ref, [(n) => n.role_id, (n) => n.label], `node of ${structure.name}`, (n) => n.role_id);
}

/** A whole run id (any case). */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Refuses what can be no run id nor the start of one (before anything is asked of a server). */
export function checkRunRef(ref: string): void {
  if (RUN_ID.test(ref)) return;
  if (ref.length < RUN_PREFIX_MIN || !/^[0-9a-f-]+$/i.test(ref)) {
    throw invalid(`--run takes a run id or its first ${RUN_PREFIX_MIN} or more characters (hex digits), not "${ref}"`);
  }
}

/**
 * The run id `ref` names: a whole run id, or its first characters (at least
 * `RUN_PREFIX_MIN`, as `org history` and the chat print them) matching exactly one run the
 * caller may follow, within the structure `structureId` when given.
 */
export async function findRunId(client: Pick<OrgClient, 'findRuns'>, ref: string, structureId?: string): Promise<string> {
  if (RUN_ID.test(ref)) return ref.toLowerCase();
  checkRunRef(ref);
  const { runs, more } = await client.findRuns(ref, structureId);
  if (runs.length === 1) return runs[0]!.run_id;
  if (runs.length === 0) throw notFound(`no run of yours starts with "${ref}" (org history STRUCTURE ROLE lists a node's runs)`);
  const listed = runs.map((run) => `${run.run_id} (${run.role_id})`).join(', ');
  throw invalid(`"${ref}" matches several runs: ${listed}${more ? ', …' : ''}; give more characters`);
}
