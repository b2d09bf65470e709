/**
 * Changes applied on trial. Concurrent changes to one structure are committed together
 * (one journal append, one fsync): each is decided against the record with the earlier
 * ones of its group applied, and readers must not see any of them before they are on
 * disk. So the group is applied on trial and undone again in the same synchronous step,
 * before anything else runs; once the journal append is durable the changes are applied
 * for real.
 */
import { applyChange, type NodeFields, type NodeIndex, type StructureChange } from './changes.js';
import type { NodeRecord, StructureRecord } from './types.js';

/** Puts the record back as it was before one change. */
export type Undo = () => void;

const nothing: Undo = () => undefined;

/**
 * Applies `change` to `record` (and its node index) exactly as `applyChange` does, and
 * returns what undoes it. Undos must run in the reverse order of their changes.
 */
export function applyOnTrial(record: StructureRecord, byId: NodeIndex, change: StructureChange): Undo {
  switch (change.op) {
    case 'node.add': {
      const length = record.agents.length;
      const added = !byId.has(change.node.id);
      applyChange(record, change, byId);
      return () => {
        record.agents.length = length;
        if (added) byId.delete(change.node.id);
      };
    }
    case 'node.update': {
      const node = byId.get(change.id);
      if (!node) return nothing;
      const before = fieldsOf(node, Object.keys(change.set) as (keyof NodeFields)[]);
      applyChange(record, change, byId);
      return () => {
        for (const [key, present, value] of before) {
          if (present) Object.assign(node, { [key]: value });
          else delete (node as Partial<NodeRecord>)[key];
        }
      };
    }
    case 'node.archive': {
      const index = record.agents.findIndex((candidate) => candidate.id === change.id);
      const node = record.agents[index];
      if (!node) return nothing;
      applyChange(record, change, byId);
      return () => {
        record.archive.pop();
        record.agents.splice(index, 0, node);
        byId.set(node.id, node);
      };
    }
    case 'node.restore': {
      const index = record.archive.map((entry) => entry.role_id).lastIndexOf(change.role_id);
      const entry = record.archive[index];
      if (!entry) return nothing;
      applyChange(record, change, byId);
      return () => {
        byId.delete(record.agents.pop()!.id);
        record.archive.splice(index, 0, entry);
      };
    }
    case 'member.set': {
      const existing = record.members.find((member) => member.user_id === change.member.user_id);
      const role = existing?.role;
      applyChange(record, change);
      return existing
        ? () => {
            existing.role = role!;
          }
        : () => {
            record.members.pop();
          };
    }
    case 'member.remove': {
      const index = record.members.findIndex((member) => member.user_id === change.user_id);
      const member = record.members[index];
      applyChange(record, change);
      return member
        ? () => {
            record.members.splice(index, 0, member);
          }
        : nothing;
    }
    case 'structure.rename':
    case 'structure.archive':
    case 'structure.restore': {
      const { name, archived_at: archivedAt } = record;
      applyChange(record, change);
      return () => {
        record.name = name;
        if (archivedAt === undefined) delete record.archived_at;
        else record.archived_at = archivedAt;
      };
    }
  }
}

/** The named fields of a node as they are now: [key, whether present, value]. */
function fieldsOf(node: NodeRecord, keys: (keyof NodeFields)[]): [keyof NodeFields, boolean, unknown][] {
  return keys.map((key) => [key, Object.hasOwn(node, key), node[key]]);
}
