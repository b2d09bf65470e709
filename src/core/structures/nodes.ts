/**
 * Nodes of a structure (API.md §5, §9): add, change, move, archive and restore, each a
 * journaled change of the structure; the node's own files (history, artifacts) live in
 * its folder and are kept when it is archived.
 */
import { join } from 'node:path';
import { conflict, invalid, notFound } from '../errors.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import type { NodeActivity } from './activity.js';
import type { NodeFields, StructureChange } from './changes.js';
import type { Actor, StructureRegistry } from './registry.js';
import type { StructureStore, TimelineEntry } from './structure-store.js';
import { spotForNewChild } from './placement.js';
import { withState } from './structures.js';
import type { ArchivedNodeRecord, NewNode, Node, NodePatch, NodeRecord } from './types.js';

export interface NodeServiceOptions {
  registry: StructureRegistry;
  store: StructureStore;
  activity: NodeActivity;
  /** `.org/structures`: node folders are `<dir>/<structure_id>/nodes/<node_id>`. */
  dir: string;
  clock?: Clock;
  ids?: IdGenerator;
  /** Called after a node moved to the archive (e.g. to revoke its keys). */
  onArchived?: (structureId: string, node: NodeRecord) => Promise<void>;
}

/** The nodes of structures. */
export class NodeService {
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  constructor(private readonly options: NodeServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  /** The live node with `roleId`, with its state; 404 when there is none. */
  get(structureId: string, roleId: string): Node {
    return withState(this.record(structureId, roleId), this.options.activity);
  }

  /** The stored record of the live node with `roleId`; 404 when there is none. */
  record(structureId: string, roleId: string): NodeRecord {
    this.options.registry.get(structureId);
    const node = this.options.registry.nodeByRole(structureId, roleId);
    if (!node) throw notFound(`node ${roleId} not found in structure ${structureId}`);
    return node;
  }

  /** Folder of a node's own data (history, artifacts). */
  dir(structureId: string, nodeId: string): string {
    return join(this.options.dir, structureId, 'nodes', nodeId);
  }

  /** Adds a node under the rules of API.md §5. */
  async add(structureId: string, input: NewNode, actor: Actor): Promise<Node> {
    const registry = this.options.registry;
    const node = await registry.change(structureId, actor, (record) => {
      if (registry.nodeByRole(structureId, input.role_id)) throw conflict(`a node with role_id ${input.role_id} already exists in this structure`);
      const parent = parentOfNew(record.agents, input);
      if (parent === null && record.agents.length > 0) {
        throw invalid('parent (a role_id) or parent_id is required: this structure already has a root node', [{ path: 'body.parent_id', message: 'must be the id of a node of this structure (or give parent, its role_id)' }]);
      }
      // Without a position: below the parent, right of its last child, clear of every node.
      const spot = parent && (input.x === undefined || input.y === undefined) ? spotForNewChild(record.agents, parent) : { x: 0, y: 0 };
      const created: NodeRecord = {
        id: this.ids(),
        role_id: input.role_id,
        label: input.label,
        parent_id: parent?.id ?? null,
        x: input.x ?? spot.x,
        y: input.y ?? spot.y,
        starting_context: input.starting_context ?? '',
        container_url: input.container_url ?? null,
        created_at: isoNow(this.clock),
      };
      return { changes: [{ op: 'node.add', node: created }], result: created };
    });
    return withState(node, this.options.activity);
  }

  /** Changes label, position, starting context or container URL of a node, or moves it under another parent. */
  async update(structureId: string, roleId: string, patch: NodePatch, actor: Actor): Promise<Node> {
    const registry = this.options.registry;
    const node = await registry.change(structureId, actor, (record) => {
      const found = registry.nodeByRole(structureId, roleId);
      if (!found) throw notFound(`node ${roleId} not found in structure ${structureId}`);
      const set: NodeFields = {};
      const parentId = newParent(record.agents, found, patch);
      if (parentId !== undefined) set.parent_id = parentId;
      if (patch.label !== undefined) set.label = patch.label;
      if (patch.x !== undefined) set.x = patch.x;
      if (patch.y !== undefined) set.y = patch.y;
      if (patch.starting_context !== undefined) set.starting_context = patch.starting_context;
      if (patch.container_url !== undefined) set.container_url = patch.container_url;
      const changes: StructureChange[] = Object.keys(set).length > 0 ? [{ op: 'node.update', id: found.id, set }] : [];
      return { changes, result: found };
    });
    return withState(node, this.options.activity);
  }

  /** Moves a childless node to the archive; 409 when it has children. */
  async remove(structureId: string, roleId: string, actor: Actor): Promise<ArchivedNodeRecord> {
    const registry = this.options.registry;
    const archived = await registry.change(structureId, actor, (record) => {
      const found = registry.nodeByRole(structureId, roleId);
      if (!found) throw notFound(`node ${roleId} not found in structure ${structureId}`);
      const children = record.agents.filter((candidate) => candidate.parent_id === found.id);
      if (children.length > 0) {
        throw conflict(`node ${roleId} has ${children.length} child node(s) (${children.map((child) => child.role_id).join(', ')}); delete or move them first`);
      }
      const archivedAt = isoNow(this.clock);
      return { changes: [{ op: 'node.archive', id: found.id, archived_at: archivedAt }], result: { ...found, archived_at: archivedAt } };
    });
    await this.options.onArchived?.(structureId, archived);
    return archived;
  }

  /** Archived nodes, newest first. */
  archive(structureId: string): ArchivedNodeRecord[] {
    return [...this.options.registry.get(structureId).archive].reverse();
  }

  /**
   * Restores the most recently archived node with `roleId` (with its history, artifacts and
   * timeline). 409 when a live node has that role id, 404 when none is archived. Its parent
   * must still exist (else it becomes a child of the root), and a restored root needs an empty tree.
   */
  async restore(structureId: string, roleId: string, actor: Actor): Promise<Node> {
    const registry = this.options.registry;
    await registry.change(structureId, actor, (record) => {
      if (registry.nodeByRole(structureId, roleId)) throw conflict(`a live node with role_id ${roleId} exists in this structure`);
      const entry = record.archive.findLast((candidate) => candidate.role_id === roleId);
      if (!entry) throw notFound(`no archived node with role_id ${roleId}`);
      const root = record.agents.find((candidate) => candidate.parent_id === null);
      let parentId = entry.parent_id;
      if (parentId === null ? root !== undefined : !record.agents.some((candidate) => candidate.id === parentId)) {
        if (!root) throw conflict(`node ${roleId} cannot be restored: its parent is gone and the structure has no root`);
        parentId = root.id;
      }
      return { changes: [{ op: 'node.restore', role_id: roleId, parent_id: parentId }], result: undefined };
    });
    return this.get(structureId, roleId);
  }

  /** What happened to a node (created, updated, moved, archived, restored), oldest first. */
  timeline(structureId: string, nodeId: string): Promise<TimelineEntry[]> {
    return this.options.store.timeline(structureId, nodeId);
  }

  /** The timeline of the live node with `roleId`, or else of the last archived one; 404 when neither exists. */
  timelineOf(structureId: string, roleId: string): Promise<TimelineEntry[]> {
    const record = this.options.registry.get(structureId);
    const node = this.options.registry.nodeByRole(structureId, roleId) ?? record.archive.findLast((entry) => entry.role_id === roleId);
    if (!node) throw notFound(`node ${roleId} not found in structure ${structureId}`);
    return this.timeline(structureId, node.id);
  }
}

/**
 * The parent a patch moves `node` under (undefined when it does not move it). The new
 * parent is named by role_id (`parent`) or id (`parent_id`); both must agree, it must
 * be a live node of the structure, and it may not be the node or one of its descendants.
 */
/** The parent a new node names (`parent` as a role id, or `parent_id`; both must agree), or null for none. */
function parentOfNew(agents: NodeRecord[], input: NewNode): NodeRecord | null {
  const byRole = input.parent === undefined ? undefined : agents.find((candidate) => candidate.role_id === input.parent);
  const byId = input.parent_id === undefined || input.parent_id === null ? undefined : agents.find((candidate) => candidate.id === input.parent_id);
  if (input.parent !== undefined && !byRole) {
    throw invalid(`parent ${input.parent} is not a node of this structure`, [{ path: 'body.parent', message: 'must be the role_id of a node of this structure' }]);
  }
  if (input.parent_id !== undefined && input.parent_id !== null && !byId) {
    throw invalid(`parent_id ${input.parent_id} is not a node of this structure`, [{ path: 'body.parent_id', message: 'must be the id of a node of this structure' }]);
  }
  if (byRole && byId && byRole.id !== byId.id) throw invalid('parent and parent_id name different nodes', [{ path: 'body.parent', message: 'must name the same node as parent_id' }]);
  return byRole ?? byId ?? null;
}

function newParent(agents: NodeRecord[], node: NodeRecord, patch: NodePatch): string | undefined {
  if (patch.parent === undefined && patch.parent_id === undefined) return undefined;
  const byRole = patch.parent === undefined ? undefined : agents.find((candidate) => candidate.role_id === patch.parent);
  const byId = patch.parent_id === undefined ? undefined : agents.find((candidate) => candidate.id === patch.parent_id);
  if (patch.parent !== undefined && !byRole) {
    throw invalid(`parent ${patch.parent} is not a node of this structure`, [{ path: 'body.parent', message: 'must be the role_id of a node of this structure' }]);
  }
  if (patch.parent_id !== undefined && !byId) {
    throw invalid(`parent_id ${patch.parent_id} is not a node of this structure`, [{ path: 'body.parent_id', message: 'must be the id of a node of this structure' }]);
  }
  if (byRole && byId && byRole.id !== byId.id) {
    throw invalid('parent and parent_id name different nodes', [{ path: 'body.parent', message: 'must name the same node as parent_id' }]);
  }
  const target = (byRole ?? byId)!;
  if (target.id === node.parent_id) return undefined;
  const path = patch.parent !== undefined ? 'body.parent' : 'body.parent_id';
  if (node.parent_id === null) {
    throw invalid(`${node.role_id} is the root node and cannot be moved`, [{ path, message: 'the root node has no parent' }]);
  }
  const byId2 = new Map(agents.map((candidate) => [candidate.id, candidate]));
  for (let cursor: NodeRecord | undefined = target; cursor; cursor = cursor.parent_id ? byId2.get(cursor.parent_id) : undefined) {
    if (cursor.id === node.id) {
      throw invalid(`${node.role_id} cannot move under ${target.role_id}: that node is ${target.id === node.id ? 'itself' : 'one of its own reports'}`, [
        { path, message: 'would make a cycle' },
      ]);
    }
  }
  return target.id;
}
