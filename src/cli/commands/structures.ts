/** Runners of `org structures list|show|create|rename|delete|restore`: the structures you can reach, drawn as trees. */
import { invalid, notFound } from '../../core/errors.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printRows } from '../format.js';
import { commandLine } from '../quote.js';
import { findStructure, findStructureDetail } from '../resolve.js';
import { drawTree } from '../tree.js';

/** Arguments of the structures commands. */
export interface StructuresArgs extends ConnectionFlags {
  json?: boolean;
}

/** Lists the structures the caller can access, with the caller's role. */
export async function runStructuresList(args: StructuresArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const { structures } = await client.listStructures();
  printRows(deps.output, structures, {
    json: args.json,
    columns: [
      { header: 'name', value: (s) => s.name, max: 40 },
      { header: 'role', value: (s) => s.role },
      { header: 'nodes', value: (s) => String(s.node_count) },
      { header: 'created', value: (s) => s.created_at.slice(0, 10) },
      { header: 'id', value: (s) => s.id },
    ],
    empty: `no structures yet (create one with: ${commandLine('org', 'structures', 'create', 'My team', '--template', 'exec-team')})`,
  });
  return 0;
}

/** Shows a structure as a tree of nodes with their labels, role ids and states. */
export async function runStructuresShow(args: StructuresArgs & { structure?: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  if (args.json) {
    printJson(deps.output, detail);
    return 0;
  }
  const working = detail.agents.filter((node) => node.state === 'working').length;
  deps.output.out(`${detail.name}  (${detail.id})`);
  deps.output.out(`template ${detail.template} · ${detail.agents.length} node(s)${working ? ` · ${working} working` : ''} · created ${detail.created_at.slice(0, 10)}`);
  deps.output.out('');
  if (detail.agents.length === 0) deps.output.out(`no nodes yet (add one with: ${commandLine('org', 'agents', 'add', 'team-lead', '--label', 'Team lead', '-s', detail.name)})`);
  for (const line of drawTree(detail.agents)) deps.output.out(line);
  return 0;
}

/** Arguments of `org structures create`. */
export interface StructuresCreateArgs extends StructuresArgs {
  name: string;
  template?: string;
}

/** Creates a structure from a template; the caller becomes its owner. */
export async function runStructuresCreate(args: StructuresCreateArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const created = await client.createStructure(args.name, args.template);
  if (args.json) {
    printJson(deps.output, created);
    return 0;
  }
  deps.output.out(`created ${created.name} (${created.id}) from ${created.template}, ${created.agents.length} node(s); you are its ${created.role}`);
  for (const line of drawTree(created.agents)) deps.output.out(line);
  return 0;
}

/** Arguments of `org structures rename`. */
export interface StructuresRenameArgs extends StructuresArgs {
  structure: string;
  name: string;
}

/** Renames a structure (owner). */
export async function runStructuresRename(args: StructuresRenameArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const found = await findStructure(client, args.structure, deps.env);
  const renamed = await client.renameStructure(found.id, args.name);
  if (args.json) printJson(deps.output, renamed);
  else deps.output.out(`renamed ${found.name} to ${renamed.name} (${renamed.id})`);
  return 0;
}

/** Arguments of `org structures delete|restore`. */
export interface StructuresPickArgs extends StructuresArgs {
  structure: string;
}

/** Deletes a structure into the archive (owner); `org structures restore` brings it back. */
export async function runStructuresDelete(args: StructuresPickArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const found = await findStructure(client, args.structure, deps.env);
  await client.deleteStructure(found.id);
  deps.output.out(`deleted ${found.name} into the archive (restore it with: ${commandLine('org', 'structures', 'restore', found.id)})`);
  return 0;
}

/** Restores an archived structure (owner), named by id or by name among the archived ones. */
export async function runStructuresRestore(args: StructuresPickArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const { structures } = await client.archivedStructures();
  const wanted = args.structure.toLowerCase();
  const matches = structures.filter((candidate) => candidate.id === args.structure || candidate.name.toLowerCase() === wanted);
  if (matches.length === 0) throw notFound(`no archived structure ${args.structure}${structures.length ? `; archived: ${structures.map((s) => `${s.name} (${s.id})`).join(', ')}` : ''}`);
  if (matches.length > 1) throw invalid(`several archived structures are named ${args.structure}: name one by id (${matches.map((s) => s.id).join(', ')})`);
  const restored = await client.restoreStructure(matches[0]!.id);
  if (args.json) printJson(deps.output, restored);
  else deps.output.out(`restored ${restored.name} (${restored.id})`);
  return 0;
}
