/**
 * Structures (workspaces), their nodes, members and archive (API.md §5). Each structure
 * is one JSON document at `.org/structures/<id>/structure.json`, updated atomically and
 * serially; per-node data (history, timeline, artifacts) lives in
 * `.org/structures/<id>/nodes/<node_id>/` and is kept when a node is archived.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Role } from '../auth/roles.js';
import { conflict, invalid, isOrgError, notFound } from '../errors.js';
import { JsonFile, appendJsonl, readJsonl } from '../storage/index.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import type { NodeActivity } from './activity.js';
import type { Template } from './templates.js';
import type {
  ArchivedNodeRecord,
  LogEntry,
  MemberRecord,
  NewNode,
  Node,
  NodePatch,
  NodeRecord,
  StructureDetail,
  StructureRecord,
  StructureSummary,
} from './types.js';

/** Options of the workspace service. */
export interface WorkspaceServiceOptions {
  /** `.org/structures` */
  dir: string;
  templates: Map<string, Template>;
  activity: NodeActivity;
  clock?: Clock;
  ids?: IdGenerator;
  /** Called after a node moved to the archive (e.g. to revoke its keys). */
  onArchived?: (structureId: string, node: NodeRecord) => Promise<void>;
}

/** Who is acting, for the timeline. */
export type Actor = string;

/** Structures, nodes, members and the workspace log. */
export class WorkspaceService {
  private readonly docs = new Map<string, JsonFile<StructureRecord>>();
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  constructor(private readonly options: WorkspaceServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  /** Loads every structure on disk. */
  async load(): Promise<void> {
    await mkdir(this.options.dir, { recursive: true });
    for (const entry of await readdir(this.options.dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const doc = this.docFor(entry.name);
      try {
        const record = await doc.load();
        if (record.id !== entry.name) this.docs.delete(entry.name);
      } catch (error) {
        // A folder without structure.json is a creation interrupted before its atomic write.
        this.docs.delete(entry.name);
        if (!isOrgError(error)) throw error;
      }
    }
  }

  private docFor(id: string): JsonFile<StructureRecord> {
    let doc = this.docs.get(id);
    if (!doc) {
      doc = new JsonFile<StructureRecord>(join(this.options.dir, id, 'structure.json'), () => {
        throw notFound(`structure ${id} not found`);
      });
      this.docs.set(id, doc);
    }
    return doc;
  }

  /** The stored record of a structure; 404 when unknown. */
  record(id: string): StructureRecord {
    const doc = this.docs.get(id);
    if (!doc) throw notFound(`structure ${id} not found`);
    return doc.current;
  }

  /** True when a structure with this id exists. */
  has(id: string): boolean {
    return this.docs.has(id);
  }

  /** The role of a user in a structure, if a member. */
  roleOf(structureId: string, userId: string): Role | undefined {
    return this.docs.get(structureId)?.current.members.find((member) => member.user_id === userId)?.role;
  }

  /** Summaries of the structures a user belongs to (every structure for `null`, the administrator). */
  summaries(userId: string | null): StructureSummary[] {
    const out: StructureSummary[] = [];
    for (const doc of this.docs.values()) {
      const record = doc.current;
      const role = userId === null ? 'owner' : record.members.find((member) => member.user_id === userId)?.role;
      if (!role) continue;
      out.push({ id: record.id, name: record.name, role, created_at: record.created_at, node_count: record.agents.length });
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** The structure detail with live node states. */
  detail(id: string): StructureDetail {
    const record = this.record(id);
    return {
      id: record.id,
      name: record.name,
      template: record.template,
      created_at: record.created_at,
      agents: record.agents.map((node) => this.withState(node)),
    };
  }

  /** A node record plus its live state. */
  withState(node: NodeRecord): Node {
    return { ...node, state: this.options.activity.stateOf(node.id) };
  }

  /** The live node with `roleId`; 404 when there is none. */
  node(structureId: string, roleId: string): Node {
    const node = this.record(structureId).agents.find((candidate) => candidate.role_id === roleId);
    if (!node) throw notFound(`node ${roleId} not found in structure ${structureId}`);
    return this.withState(node);
  }

  /** Creates a structure from a template; `ownerId` (null for the administrator) becomes its owner. */
  async create(input: { name: string; template: string; ownerId: string | null }): Promise<StructureDetail> {
    const template = this.options.templates.get(input.template);
    if (!template) {
      throw invalid(`unknown template "${input.template}"`, [
        { path: 'body.template', message: `must be one of ${[...this.options.templates.keys()].join(', ')}` },
      ]);
    }
    const now = isoNow(this.clock);
    const byRole = new Map<string, string>();
    const agents: NodeRecord[] = template.nodes.map((node) => {
      const id = this.ids();
      byRole.set(node.role_id, id);
      return {
        id,
        role_id: node.role_id,
        label: node.label,
        parent_id: node.parent === null ? null : (byRole.get(node.parent) ?? null),
        x: node.x,
        y: node.y,
        starting_context: node.starting_context,
        container_url: null,
        created_at: now,
      };
    });
    const record: StructureRecord = {
      version: 1,
      id: this.ids(),
      name: input.name,
      template: template.name,
      created_at: now,
      members: input.ownerId ? [{ user_id: input.ownerId, role: 'owner', added_at: now }] : [],
      agents,
      archive: [],
    };
    const doc = new JsonFile<StructureRecord>(join(this.options.dir, record.id, 'structure.json'), () => record);
    await doc.load();
    await doc.flush();
    this.docs.set(record.id, doc);
    return this.detail(record.id);
  }

  /** Adds a node under the rules of API.md §5. */
  async addNode(structureId: string, input: NewNode, actor: Actor): Promise<Node> {
    const doc = this.docFor(structureId);
    this.record(structureId);
    const node = await doc.update((draft) => {
      if (draft.agents.some((candidate) => candidate.role_id === input.role_id)) {
        throw conflict(`a node with role_id ${input.role_id} already exists in this structure`);
      }
      const parentId = input.parent_id ?? null;
      if (parentId === null && draft.agents.length > 0) {
        throw invalid('parent_id is required: this structure already has a root node', [
          { path: 'body.parent_id', message: 'must be the id of a node of this structure' },
        ]);
      }
      if (parentId !== null && !draft.agents.some((candidate) => candidate.id === parentId)) {
        throw invalid(`parent_id ${parentId} is not a node of this structure`, [
          { path: 'body.parent_id', message: 'must be the id of a node of this structure' },
        ]);
      }
      const created: NodeRecord = {
        id: this.ids(),
        role_id: input.role_id,
        label: input.label,
        parent_id: parentId,
        x: input.x ?? 0,
        y: input.y ?? 0,
        starting_context: input.starting_context ?? '',
        container_url: input.container_url ?? null,
        created_at: isoNow(this.clock),
      };
      draft.agents.push(created);
      return created;
    });
    await this.timeline(structureId, node.id, 'created', actor);
    return this.withState(node);
  }

  /** Updates label, position, starting context or container URL of a node, or moves it under another parent. */
  async patchNode(structureId: string, roleId: string, patch: NodePatch, actor: Actor): Promise<Node> {
    this.node(structureId, roleId);
    const node = await this.docFor(structureId).update((draft) => {
      const found = draft.agents.find((candidate) => candidate.role_id === roleId);
      if (!found) throw notFound(`node ${roleId} not found in structure ${structureId}`);
      const parentId = newParent(draft.agents, found, patch);
      if (parentId !== undefined) found.parent_id = parentId;
      if (patch.label !== undefined) found.label = patch.label;
      if (patch.x !== undefined) found.x = patch.x;
      if (patch.y !== undefined) found.y = patch.y;
      if (patch.starting_context !== undefined) found.starting_context = patch.starting_context;
      if (patch.container_url !== undefined) found.container_url = patch.container_url;
      return found;
    });
    await this.timeline(structureId, node.id, 'updated', actor, { fields: Object.keys(patch) });
    return this.withState(node);
  }

  /** Moves a childless node to the archive; 409 when it has children. */
  async removeNode(structureId: string, roleId: string, actor: Actor): Promise<ArchivedNodeRecord> {
    this.node(structureId, roleId);
    const archived = await this.docFor(structureId).update((draft) => {
      const index = draft.agents.findIndex((candidate) => candidate.role_id === roleId);
      const found = draft.agents[index];
      if (!found) throw notFound(`node ${roleId} not found in structure ${structureId}`);
      const children = draft.agents.filter((candidate) => candidate.parent_id === found.id);
      if (children.length > 0) {
        throw conflict(`node ${roleId} has ${children.length} child node(s) (${children.map((c) => c.role_id).join(', ')}); delete or move them first`);
      }
      draft.agents.splice(index, 1);
      const entry: ArchivedNodeRecord = { ...found, archived_at: isoNow(this.clock) };
      draft.archive.push(entry);
      return entry;
    });
    await this.timeline(structureId, archived.id, 'archived', actor);
    await this.options.onArchived?.(structureId, archived);
    return archived;
  }

  /** Archived nodes, newest first. */
  archive(structureId: string): ArchivedNodeRecord[] {
    return [...this.record(structureId).archive].reverse();
  }

  /**
   * Restores the most recently archived node with `roleId` (with its history, artifacts and
   * timeline). 409 when a live node has that role id, 404 when none is archived. Its parent
   * must still exist (else it becomes a child of the root), and a restored root needs an empty tree.
   */
  async restoreNode(structureId: string, roleId: string, actor: Actor): Promise<Node> {
    this.record(structureId);
    const node = await this.docFor(structureId).update((draft) => {
      if (draft.agents.some((candidate) => candidate.role_id === roleId)) {
        throw conflict(`a live node with role_id ${roleId} exists in this structure`);
      }
      const index = draft.archive.map((entry) => entry.role_id).lastIndexOf(roleId);
      const entry = draft.archive[index];
      if (!entry) throw notFound(`no archived node with role_id ${roleId}`);
      const { archived_at: _archivedAt, ...record } = entry;
      const root = draft.agents.find((candidate) => candidate.parent_id === null);
      if (record.parent_id === null ? root !== undefined : !draft.agents.some((candidate) => candidate.id === record.parent_id)) {
        if (!root) throw conflict(`node ${roleId} cannot be restored: its parent is gone and the structure has no root`);
        record.parent_id = root.id;
      }
      draft.archive.splice(index, 1);
      draft.agents.push(record);
      return record;
    });
    await this.timeline(structureId, node.id, 'restored', actor);
    return this.withState(node);
  }

  /** Members of a structure. */
  members(structureId: string): MemberRecord[] {
    return this.record(structureId).members;
  }

  /** Adds a member, or changes the role of an existing one. */
  async setMember(structureId: string, userId: string, role: Role): Promise<void> {
    await this.docFor(structureId).update((draft) => {
      const existing = draft.members.find((member) => member.user_id === userId);
      if (existing) existing.role = role;
      else draft.members.push({ user_id: userId, role, added_at: isoNow(this.clock) });
    });
  }

  /** Folder of a node's own data (history, timeline, artifacts). */
  nodeDir(structureId: string, nodeId: string): string {
    return join(this.options.dir, structureId, 'nodes', nodeId);
  }

  private timeline(structureId: string, nodeId: string, type: string, actor: Actor, extra: Record<string, unknown> = {}): Promise<void> {
    return appendJsonl(join(this.nodeDir(structureId, nodeId), 'timeline.jsonl'), { type, actor, at: isoNow(this.clock), ...extra });
  }

  /** Appends a decision or milestone to the workspace log. */
  async appendLog(structureId: string, entry: Omit<LogEntry, 'id' | 'created_at'>): Promise<LogEntry> {
    const full: LogEntry = { id: this.ids(), created_at: isoNow(this.clock), ...entry };
    await appendJsonl(join(this.options.dir, structureId, 'log.jsonl'), full);
    return full;
  }

  /** The workspace log, newest first, at most `limit` entries. */
  async readLog(structureId: string, limit: number): Promise<LogEntry[]> {
    this.record(structureId);
    const entries = await readJsonl<LogEntry>(join(this.options.dir, structureId, 'log.jsonl'));
    return entries.reverse().slice(0, limit);
  }
}

/**
 * The parent a patch moves `node` under (undefined when it does not move it). The new
 * parent is named by role_id (`parent`) or id (`parent_id`); both must agree, it must
 * be a live node of the structure, and it may not be the node or one of its descendants.
 */
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
  for (let cursor: NodeRecord | undefined = target; cursor; cursor = agents.find((candidate) => candidate.id === cursor!.parent_id)) {
    if (cursor.id === node.id) {
      throw invalid(`${node.role_id} cannot move under ${target.role_id}: that node is ${target.id === node.id ? 'itself' : 'one of its own reports'}`, [
        { path, message: 'would make a cycle' },
      ]);
    }
  }
  return target.id;
}
