/** Runners of `org artifacts list|get`: the files on a node's artifact shelf. */
import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { conflict } from '../../core/errors.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { formatBytes, printRows } from '../format.js';
import { commandLine } from '../quote.js';
import { findNode, findStructureDetail } from '../resolve.js';

/** Arguments of the artifacts commands. */
export interface ArtifactsArgs extends ConnectionFlags {
  structure?: string;
  node: string;
  json?: boolean;
}

/** Lists a node's artifacts. */
export async function runArtifactsList(args: ArtifactsArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  const node = findNode(detail, args.node);
  const { artifacts } = await client.artifacts(detail.id, node.role_id);
  printRows(deps.output, artifacts, {
    json: args.json,
    columns: [
      { header: 'name', value: (a) => a.name },
      { header: 'size', value: (a) => formatBytes(a.size) },
      { header: 'type', value: (a) => a.content_type },
      { header: 'created', value: (a) => a.created_at.slice(0, 19).replace('T', ' ') },
    ],
    empty: `${node.role_id} has no artifacts yet (turns and attachments put files on its shelf)`,
  });
  if (!args.json && artifacts.length > 0) deps.output.err(`download one with: ${commandLine('org', 'artifacts', 'get', node.role_id, artifacts[0]!.name, '-s', detail.name)}`);
  return 0;
}

/** Arguments of `org artifacts get`. */
export interface ArtifactGetArgs extends ArtifactsArgs {
  name: string;
  /** Where to write: a file path, or `-` for stdout (default: the artifact's name in the working folder). */
  output?: string;
  /** Overwrite an existing file. */
  force?: boolean;
}

/** Downloads one artifact to a file (or stdout with `-o -`). */
export async function runArtifactsGet(args: ArtifactGetArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  const node = findNode(detail, args.node);
  const { data, contentType } = await client.downloadArtifact(detail.id, node.role_id, args.name);
  if (args.output === '-') {
    deps.writeBytes(data);
    return 0;
  }
  const file = resolve(deps.cwd, args.output ?? basename(args.name));
  try {
    await writeFile(file, data, { flag: args.force ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw conflict(`${file} exists; choose another file with -o, or overwrite it with --force`);
    throw error;
  }
  deps.output.out(`saved ${args.name} (${formatBytes(data.byteLength)}, ${contentType}) to ${file}`);
  return 0;
}
