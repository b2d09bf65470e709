/**
 * Which structure a skills command acts through. Reading needs none (or the only one);
 * writing a shared skill needs a structure where the caller is operator or owner, which
 * the CLI picks by itself instead of asking for `-s` (any of them will do: the skill is
 * the same for all).
 */
import type { OrgClient } from '../client/index.js';
import type { Role, StructureSummary } from '../client/types.js';
import { forbidden, isOrgError } from '../core/errors.js';
import type { ConnectionFlags } from './connection.js';
import { describeStructure, findStructure } from './resolve.js';

/** Flags shared by the skills commands. */
export interface SkillFlags extends ConnectionFlags {
  structure?: string;
  json?: boolean;
}

const WRITERS: readonly Role[] = ['operator', 'owner'];

/**
 * The structure a skills read goes through, or undefined when the caller has none and
 * the server may not need one (the administrator).
 */
export async function skillScope(client: Pick<OrgClient, 'listStructures'>, ref: string | undefined, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    return (await findStructure(client, ref, env)).id;
  } catch (error) {
    if (!ref && isOrgError(error) && error.code === 'not_found') return undefined;
    throw error;
  }
}

/**
 * The structure a read of one skill is for: the one named (`-s` or `ORG_STRUCTURE`), else
 * none, and the server resolves the slug (the instance skill, else the one of the
 * caller's structures that has it).
 */
export async function namedScope(client: Pick<OrgClient, 'listStructures'>, ref: string | undefined, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return (ref ?? env.ORG_STRUCTURE) ? (await findStructure(client, ref, env)).id : undefined;
}

/**
 * The structures a write may go through, best first: the named one (`-s` or
 * `ORG_STRUCTURE`) alone, else every structure where the caller may write skills.
 */
export async function writableStructures(client: Pick<OrgClient, 'listStructures'>, ref: string | undefined, env: NodeJS.ProcessEnv): Promise<StructureSummary[]> {
  if (ref ?? env.ORG_STRUCTURE) return [await findStructure(client, ref, env)];
  const { structures } = await client.listStructures();
  const writable = structures.filter((structure) => WRITERS.includes(structure.role));
  if (writable.length > 0) return writable;
  if (structures.length === 0) return [await findStructure(client, undefined, env)]; // says how to create one
  throw forbidden(`writing skills needs the operator or owner role in a structure; you are ${structures.map((s) => `${s.role} of ${describeStructure(s)}`).join(', ')}`);
}

/** The structure a write goes through: the named one, else the first where the caller may write. */
export async function writeScope(client: Pick<OrgClient, 'listStructures'>, ref: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  return (await writableStructures(client, ref, env))[0]!.id;
}
