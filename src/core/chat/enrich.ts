/**
 * Enrichment: turns a chat message into the `Turn` a runtime receives — the
 * structure, the node with its starting context, parent, children and peers, the
 * staged attachments, the matched skills (or the one named by `/<slug>`) and recent
 * history.
 */
import type { Turn, TurnNode } from '../runtimes/types.js';
import type { ChatSkills, ChatStructure } from './ports.js';
import type { StoredMessage } from './store.js';

/** How many skills the lookup hands to the runtime. */
export const ENRICH_SKILLS = 3;
/** How many recent history messages the runtime receives. */
export const ENRICH_HISTORY = 20;

const EXPLICIT = /^\/([a-z0-9]+(?:-[a-z0-9]+)*)(?:\s|$)/;

/** The slug named at the start of a message (`/<slug> …`), if any. */
export function explicitSlug(message: string): string | undefined {
  return EXPLICIT.exec(message.trimStart())?.[1];
}

/** Describes a node and its neighbourhood. */
export function describeNode(structure: ChatStructure, nodeId: string): TurnNode {
  const node = structure.agents.find((candidate) => candidate.id === nodeId);
  if (!node) throw new Error(`node ${nodeId} is not in structure ${structure.id}`);
  const brief = (n: { role_id: string; label: string }) => ({ role_id: n.role_id, label: n.label });
  const parent = structure.agents.find((candidate) => candidate.id === node.parent_id);
  return {
    id: node.id,
    role_id: node.role_id,
    label: node.label,
    starting_context: node.starting_context,
    parent: parent ? brief(parent) : null,
    children: structure.agents.filter((candidate) => candidate.parent_id === node.id).map(brief),
    peers: structure.agents.filter((candidate) => candidate.id !== node.id && candidate.parent_id === node.parent_id && node.parent_id !== null).map(brief),
  };
}

/** Input of enrichment. */
export interface EnrichInput {
  runId: string;
  structure: ChatStructure;
  nodeId: string;
  message: string;
  attachments: Turn['attachments'];
  history: StoredMessage[];
  skills: ChatSkills;
}

/** Builds the enriched turn. */
export async function enrich(input: EnrichInput): Promise<Turn> {
  const slug = explicitSlug(input.message);
  let skills: Turn['skills'] = [];
  if (slug) {
    const skill = await input.skills.read(slug, input.structure.id, 1);
    skills = skill ? [skill] : [];
  } else {
    const matches = await input.skills.search(input.message, input.structure.id, ENRICH_SKILLS);
    for (const match of matches) {
      const skill = await input.skills.read(match.slug, input.structure.id, match.score);
      if (skill) skills.push(skill);
    }
  }
  return {
    run_id: input.runId,
    structure: { id: input.structure.id, name: input.structure.name },
    node: describeNode(input.structure, input.nodeId),
    message: input.message,
    attachments: input.attachments,
    skills,
    explicit_skill: slug ?? null,
    history: input.history.slice(0, ENRICH_HISTORY),
  };
}
