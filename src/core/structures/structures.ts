/**
 * Structures (API.md §5): creating one from a template, listing those a user can reach,
 * and the detail of one with its nodes' live states.
 */
import { LRUCache } from 'lru-cache';
import { conflict, invalid } from '../errors.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import type { NodeActivity } from './activity.js';
import type { Actor, StructureRegistry } from './registry.js';
import type { Template } from './templates.js';
import type { ArchivedStructure, Node, NodeRecord, StructureDetail, StructureRecord, StructureSummary } from './types.js';

export interface StructureServiceOptions {
  registry: StructureRegistry;
  templates: Map<string, Template>;
  activity: NodeActivity;
  clock?: Clock;
  ids?: IdGenerator;
  /** Bytes of serialised structure details kept for repeated reads (default 16 MiB). */
  detailCacheBytes?: number;
}

/** A structure detail serialised once for a given structure version and activity revision. */
interface CachedDetail {
  version: number;
  activity: number;
  /** The detail's JSON text, UTF-8 encoded: sent as it is, never encoded again per request. */
  bytes: Buffer;
}

/**
 * A node with its live state, built as one literal (no spread: a stable object shape);
 * a node working on a delegated task also says for whom (`working_for`).
 */
export function withState(node: NodeRecord, activity: NodeActivity): Node {
  const shown: Node = {
    id: node.id,
    role_id: node.role_id,
    label: node.label,
    parent_id: node.parent_id,
    x: node.x,
    y: node.y,
    state: activity.stateOf(node.id),
    starting_context: node.starting_context,
    container_url: node.container_url,
    created_at: node.created_at,
  };
  const workingFor = activity.workingFor(node.id);
  if (workingFor !== undefined) shown.working_for = workingFor;
  return shown;
}

/** A structure's summary for a user (the administrator for `null`); undefined when not a member. */
function summaryOf(record: StructureRecord, userId: string | null): StructureSummary | undefined {
  const role = userId === null ? 'owner' : record.members.find((member) => member.user_id === userId)?.role;
  if (!role) return undefined;
  return { id: record.id, name: record.name, role, created_at: record.created_at, node_count: record.agents.length };
}

/** Structures: create, list, detail. */
export class StructureService {
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly details: LRUCache<string, CachedDetail>;

  constructor(private readonly options: StructureServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
    this.details = new LRUCache<string, CachedDetail>({
      maxSize: options.detailCacheBytes ?? 16 * 1024 * 1024,
      sizeCalculation: (entry) => Math.max(1, entry.bytes.length),
    });
  }

  /** The stored record of a structure; 404 when unknown. */
  record(id: string): StructureRecord {
    return this.options.registry.get(id);
  }

  /**
   * True when a live structure with this id exists; with `archived`, one deleted into the
   * archive counts too (only its restore route asks so).
   */
  has(id: string, archived = false): boolean {
    if (!this.options.registry.has(id)) return false;
    return archived || this.options.registry.get(id).archived_at === undefined;
  }

  /** Summaries of the live structures a user belongs to (every structure for `null`, the administrator). */
  summaries(userId: string | null): StructureSummary[] {
    const out: StructureSummary[] = [];
    for (const record of this.options.registry.all()) {
      if (record.archived_at !== undefined) continue;
      const summary = summaryOf(record, userId);
      if (summary) out.push(summary);
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** The archived structures a user owns (every archived one for `null`, the administrator), newest first. */
  archived(userId: string | null): ArchivedStructure[] {
    const out: ArchivedStructure[] = [];
    for (const record of this.options.registry.all()) {
      if (record.archived_at === undefined) continue;
      const summary = summaryOf(record, userId);
      if (summary?.role === 'owner') out.push({ ...summary, archived_at: record.archived_at });
    }
    return out.sort((a, b) => b.archived_at.localeCompare(a.archived_at) || a.id.localeCompare(b.id));
  }

  /** Renames a live structure; the caller's summary of it as `role`. */
  async rename(id: string, name: string, actor: Actor): Promise<StructureRecord> {
    return this.options.registry.change(id, actor, (record) => ({ changes: record.name === name ? [] : [{ op: 'structure.rename', name }], result: record }));
  }

  /**
   * Deletes a structure into the archive: from then on it is listed only among the
   * archived ones, and every request to it (chat, keys, members) is answered 404 until an
   * owner restores it. Its nodes, histories and artifacts stay where they are.
   */
  async archive(id: string, actor: Actor): Promise<void> {
    await this.options.registry.change(id, actor, (record) => {
      if (record.archived_at !== undefined) throw conflict(`structure ${id} is already archived`);
      return { changes: [{ op: 'structure.archive', archived_at: isoNow(this.clock) }], result: undefined };
    });
  }

  /** Restores an archived structure; 409 when it is not archived. */
  async restore(id: string, actor: Actor): Promise<StructureRecord> {
    return this.options.registry.change(id, actor, (record) => {
      if (record.archived_at === undefined) throw conflict(`structure ${id} is not archived`);
      return { changes: [{ op: 'structure.restore' }], result: record };
    });
  }

  /** The summary of a structure as `userId` sees it (null: the administrator). */
  summary(record: StructureRecord, userId: string | null): StructureSummary | undefined {
    return summaryOf(record, userId);
  }

  /** The structure detail with live node states. */
  detail(id: string): StructureDetail {
    const record = this.record(id);
    const activity = this.options.activity;
    return { id: record.id, name: record.name, template: record.template, created_at: record.created_at, agents: record.agents.map((node) => withState(node, activity)) };
  }

  /**
   * The structure detail as UTF-8 JSON bytes. Reading a structure is the most frequent
   * request and the detail only changes with the structure's version or a node's live
   * state, so the bytes are built once per (version, activity revision) and served as
   * they are; the same Buffer is returned until then, so per-body work downstream (the
   * ETag) can be cached by its identity.
   */
  detailBytes(id: string): Buffer {
    const version = this.options.registry.version(id);
    const activity = this.options.activity.revisionOf(id);
    const cached = this.details.get(id);
    if (cached !== undefined && cached.version === version && cached.activity === activity) return cached.bytes;
    const bytes = Buffer.from(JSON.stringify(this.detail(id)), 'utf8');
    this.details.set(id, { version, activity, bytes });
    return bytes;
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
    await this.options.registry.create(record);
    return this.detail(record.id);
  }
}
