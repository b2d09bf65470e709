/**
 * Enrichment: turns a chat message into the `Turn` a runtime receives — the
 * structure, the node with its starting context, parent, children and peers, the
 * staged attachments, the matched skills (or the one named by `/<slug>`) and recent
 * history.
 */
import type { Turn, TurnNode } from '../runtimes/types.js';
import { stepDelegation } from '../runtimes/local-delegation.js';
import { headOf } from '../util/text.js';
import type { ChatSkills, ChatStructure } from './ports.js';
import type { StoredMessage } from './store.js';

/** How many skills the lookup hands to the runtime. */
export const ENRICH_SKILLS = 3;
/** How many recent history messages the runtime receives. */
export const ENRICH_HISTORY = 20;

/**
 * How many characters of each history message's text the runtime receives. An agent
 * that streamed a 100,000-event answer wrote megabytes of text: carried whole by every
 * later turn of its node, each turn's request would weigh that much and take that long
 * to send and parse before its first event. The LLM runtime's prompt keeps far less.
 */
export const ENRICH_TEXT = 16_384;

/** `message` as a turn carries it: its text cut to `ENRICH_TEXT` characters (never inside a surrogate pair), marked `text_truncated`. */
export function turnMessage(message: StoredMessage): StoredMessage {
  if (message.text.length <= ENRICH_TEXT) return message;
  return { ...message, text: headOf(message.text, ENRICH_TEXT), text_truncated: true };
}

const EXPLICIT = /^\/([a-z0-9]+(?:-[a-z0-9]+)*)(?:\s|$)/;

/** The slug named at the start of a message (`/<slug> …`), if any. */
export function explicitSlug(message: string): string | undefined {
  return EXPLICIT.exec(message.trimStart())?.[1];
}

/**
 * How many children and how many peers a turn lists by name. A node among thousands of
 * siblings would otherwise carry all of them in every turn (the cost of a turn growing with
 * the structure, the cost of many streams with its square); `children_total` and
 * `peers_total` say how many there are, and `list_peers` over MCP lists them all.
 */
export const ENRICH_NEIGHBOURS = 50;

/** Describes a node and its neighbourhood, in one pass over the structure's nodes. */
export function describeNode(structure: ChatStructure, nodeId: string): TurnNode {
  const node = structure.agents.find((candidate) => candidate.id === nodeId);
  if (!node) throw new Error(`node ${nodeId} is not in structure ${structure.id}`);
  const brief = (n: { role_id: string; label: string }) => ({ role_id: n.role_id, label: n.label });
  let parent: TurnNode['parent'] = null;
  const children: TurnNode['children'] = [];
  const peers: TurnNode['peers'] = [];
  let childrenTotal = 0;
  let peersTotal = 0;
  for (const candidate of structure.agents) {
    if (candidate.id === node.id) continue;
    if (candidate.id === node.parent_id) parent = brief(candidate);
    if (candidate.parent_id === node.id) {
      if (childrenTotal++ < ENRICH_NEIGHBOURS) children.push(brief(candidate));
    } else if (node.parent_id !== null && candidate.parent_id === node.parent_id) {
      if (peersTotal++ < ENRICH_NEIGHBOURS) peers.push(brief(candidate));
    }
  }
  return {
    id: node.id,
    role_id: node.role_id,
    label: node.label,
    starting_context: node.starting_context,
    parent,
    children,
    children_total: childrenTotal,
    peers,
    peers_total: peersTotal,
  };
}

/** What enrichment reads: the structure and target node, the message and its staged attachments, recent history and the skill lookup. */
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
  const node = describeNode(input.structure, input.nodeId);
  let skills: Turn['skills'] = [];
  if (slug) {
    const skill = await input.skills.read(slug, input.structure.id, 1);
    skills = skill ? [skill] : [];
  } else {
    const matches = await input.skills.search(input.message, input.structure.id, ENRICH_SKILLS);
    for (const match of matches) {
      const skill = await input.skills.read(match.slug, input.structure.id, match.score);
      // A playbook that hands one of its steps to this very node is another node's: following it
      // would have this node delegate to itself (a delegated task quotes its playbook's step).
      if (skill && !handsWorkTo(skill, node.role_id)) skills.push(skill);
    }
  }
  return {
    run_id: input.runId,
    structure: { id: input.structure.id, name: input.structure.name },
    node,
    message: input.message,
    attachments: input.attachments,
    skills,
    explicit_skill: slug ?? null,
    history: input.history.slice(0, ENRICH_HISTORY).map(turnMessage),
  };
}

/** True when a step of `skill` says `Delegate to <roleId>.` */
function handsWorkTo(skill: Turn['skills'][number], roleId: string): boolean {
  return skill.steps.some((step) => stepDelegation(step.text).roles.includes(roleId));
}
