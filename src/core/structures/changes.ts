/**
 * Changes of a structure. Every write to a structure is one of these, recorded in its
 * journal and applied to the in-memory record by `applyChange`: the same pure function
 * replays the journal at start-up and applies a new change after it is durable.
 */
import type { ArchivedNodeRecord, MemberRecord, NodeRecord, StructureRecord } from './types.js';

/** The node fields a change may set. */
export type NodeFields = Partial<Pick<NodeRecord, 'label' | 'x' | 'y' | 'starting_context' | 'container_url' | 'parent_id'>>;

/** A journal entry: one write to a structure, named by `op`. */
export type StructureChange =
  | { op: 'node.add'; node: NodeRecord }
  | { op: 'node.update'; id: string; set: NodeFields }
  | { op: 'node.archive'; id: string; archived_at: string }
  /** Restores the most recently archived node with `role_id`, under `parent_id`. */
  | { op: 'node.restore'; role_id: string; parent_id: string | null }
  | { op: 'member.set'; member: MemberRecord }
  | { op: 'member.remove'; user_id: string }
  | { op: 'structure.rename'; name: string }
  /** Deletes the structure into the archive: hidden and closed to every request but its restore. */
  | { op: 'structure.archive'; archived_at: string }
  | { op: 'structure.restore' };

/** A change as journaled: who made it and when. */
export interface JournalEntry {
  seq: number;
  at: string;
  actor: string;
  /** The node the change is about, if any (the node's activity timeline is read by it). */
  node_id?: string;
  change: StructureChange;
}

/**
 * The live nodes of a record by id. When one is handed to `applyChange` (or `applyOnTrial`)
 * it is kept in step with the record, and node lookups use it instead of scanning the
 * node list: adding a node then costs the same in a structure of 10 or 10,000 nodes.
 */
export type NodeIndex = Map<string, NodeRecord>;

/** A by-id index of a record's live nodes. */
export function nodeIndex(record: StructureRecord): NodeIndex {
  return new Map(record.agents.map((node) => [node.id, node]));
}

/**
 * Applies a change to a record in place (and to its node index, when given). Changes are
 * validated before they are made, so a change that no longer fits (replayed over a newer
 * base) is ignored.
 */
export function applyChange(record: StructureRecord, change: StructureChange, byId?: NodeIndex): void {
  switch (change.op) {
    case 'node.add': {
      const present = byId ? byId.has(change.node.id) : record.agents.some((node) => node.id === change.node.id);
      if (present) return;
      record.agents.push(change.node);
      byId?.set(change.node.id, change.node);
      return;
    }
    case 'node.update': {
      const node = byId ? byId.get(change.id) : record.agents.find((candidate) => candidate.id === change.id);
      if (node) Object.assign(node, change.set);
      return;
    }
    case 'node.archive': {
      const index = record.agents.findIndex((candidate) => candidate.id === change.id);
      const node = record.agents[index];
      if (!node) return;
      record.agents.splice(index, 1);
      byId?.delete(node.id);
      const archived: ArchivedNodeRecord = { ...node, archived_at: change.archived_at };
      record.archive.push(archived);
      return;
    }
    case 'node.restore': {
      const index = record.archive.map((entry) => entry.role_id).lastIndexOf(change.role_id);
      const entry = record.archive[index];
      if (!entry) return;
      record.archive.splice(index, 1);
      const { archived_at: _archivedAt, ...node } = entry;
      node.parent_id = change.parent_id;
      record.agents.push(node);
      byId?.set(node.id, node);
      return;
    }
    case 'member.set': {
      const existing = record.members.find((member) => member.user_id === change.member.user_id);
      if (existing) existing.role = change.member.role;
      else record.members.push({ ...change.member });
      return;
    }
    case 'member.remove': {
      const index = record.members.findIndex((member) => member.user_id === change.user_id);
      if (index >= 0) record.members.splice(index, 1);
      return;
    }
    case 'structure.rename':
      record.name = change.name;
      return;
    case 'structure.archive':
      record.archived_at = change.archived_at;
      return;
    case 'structure.restore':
      delete record.archived_at;
      return;
  }
}

/** The node a change is about, for the node's activity timeline. */
export function changedNodeId(record: StructureRecord, change: StructureChange): string | undefined {
  switch (change.op) {
    case 'node.add':
      return change.node.id;
    case 'node.update':
    case 'node.archive':
      return change.id;
    case 'node.restore':
      return record.archive.findLast((entry) => entry.role_id === change.role_id)?.id;
    default:
      return undefined;
  }
}
