/** Calls about structures and their nodes: listing, creating, editing, archiving, restoring. */
import { callOn, nodePath, structurePath, type ClientBase } from '../base.js';
import type { RequestOptions } from '../http.js';
import type { ArchivedNodeRecord, ArchivedStructure, CreatedStructure, LogEntry, NewNode, Node, NodePatch, StructureDetail, StructureSummary, TimelineEntry } from '../types.js';

export const structureCalls = {
  /** Structures the caller can access, with the caller's role. */
  listStructures(request?: RequestOptions): Promise<{ structures: StructureSummary[] }> {
    return callOn(this, '/api/org/structures', {}, request);
  },

  /** A structure with every node. */
  getStructure(id: string, request?: RequestOptions): Promise<StructureDetail> {
    return callOn(this, structurePath(id), {}, request);
  },

  /** Creates a structure, from a template when one is named (the server's default is `blank`); the caller becomes its owner. */
  createStructure(name: string, template?: string, request?: RequestOptions): Promise<CreatedStructure> {
    return callOn(this, '/api/org/structures', { method: 'POST', body: { name, ...(template ? { template } : {}) } }, request);
  },

  /** Renames a structure (owner); its summary as the caller sees it. */
  renameStructure(id: string, name: string, request?: RequestOptions): Promise<StructureSummary> {
    return callOn(this, structurePath(id), { method: 'PATCH', body: { name } }, request);
  },

  /** Deletes a structure into the archive (owner): closed to every request until restored. */
  async deleteStructure(id: string, request?: RequestOptions): Promise<void> {
    await callOn(this, structurePath(id), { method: 'DELETE' }, request);
  },

  /** The archived structures the caller owns, newest first. */
  archivedStructures(request?: RequestOptions): Promise<{ structures: ArchivedStructure[] }> {
    return callOn(this, '/api/org/structures/archived', {}, request);
  },

  /** Restores an archived structure (owner). */
  restoreStructure(id: string, request?: RequestOptions): Promise<StructureSummary> {
    return callOn(this, `${structurePath(id)}/restore`, { method: 'POST' }, request);
  },

  /** Archived nodes of a structure. */
  archive(id: string, request?: RequestOptions): Promise<{ agents: ArchivedNodeRecord[] }> {
    return callOn(this, `${structurePath(id)}/archive`, {}, request);
  },

  /** The workspace log (decisions and milestones), newest first. */
  log(id: string, limit?: number, request?: RequestOptions): Promise<{ entries: LogEntry[] }> {
    return callOn(this, `${structurePath(id)}/log`, { query: { limit } }, request);
  },

  /** Adds a node to a structure. */
  addNode(structureId: string, node: NewNode, request?: RequestOptions): Promise<Node> {
    return callOn(this, `${structurePath(structureId)}/agents`, { method: 'POST', body: node }, request);
  },

  /** Changes a node's label, position, starting context or container URL, or moves it under another parent. */
  patchNode(structureId: string, roleId: string, patch: NodePatch, request?: RequestOptions): Promise<Node> {
    return callOn(this, nodePath(structureId, roleId), { method: 'PATCH', body: patch }, request);
  },

  /** Deletes (archives) a childless node. */
  removeNode(structureId: string, roleId: string, request?: RequestOptions): Promise<void> {
    return callOn(this, nodePath(structureId, roleId), { method: 'DELETE' }, request);
  },

  /** What happened to a node (created, updated, moved, archived, restored), oldest first; also for an archived node. */
  timeline(structureId: string, roleId: string, request?: RequestOptions): Promise<{ entries: TimelineEntry[] }> {
    return callOn(this, `${nodePath(structureId, roleId)}/timeline`, {}, request);
  },

  /** Restores an archived node. */
  restoreNode(structureId: string, roleId: string, request?: RequestOptions): Promise<Node> {
    return callOn(this, `${nodePath(structureId, roleId)}/restore`, { method: 'POST' }, request);
  },
} satisfies ThisType<ClientBase>;

/** The structure and node calls of `OrgClient`. */
export type StructureCalls = typeof structureCalls;
