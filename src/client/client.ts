/**
 * The typed client of the org API (API.md): one method per route, JSON in and out,
 * every failure an `OrgError`. Chat streams are `ChatStream`s that resume by themselves.
 *
 * @example
 * const client = new OrgClient({ url: 'http://127.0.0.1:4780', token });
 * const { structures } = await client.listStructures();
 * const stream = await client.chat({ structure_id, role_id: 'exec-ceo', message: 'hello' });
 * for await (const { event } of stream) console.log(event.type);
 */
import type { Dispatcher } from 'undici';
import { isOrgError } from '../core/errors.js';
import { call, send, type CallOptions, type Transport } from './http.js';
import { cancelRun, followRun, openChatStream, type ChatStream, type ChatStreamOptions } from './stream.js';
import type {
  Acceptance,
  ArchivedNodeRecord,
  ArtifactInfo,
  ChatMessage,
  CreatedKey,
  CreatedStructure,
  CreatedUser,
  DeletedSkill,
  Health,
  HistoryMessage,
  Invite,
  KeyListing,
  LogEntry,
  Members,
  NewNode,
  Node,
  NodePatch,
  Role,
  SearchMatch,
  Skill,
  SkillCommit,
  SkillListEntry,
  SkillListQuery,
  SkillProblem,
  SkillWrite,
  StructureDetail,
  StructureSummary,
  SyncResult,
  WhoAmI,
} from './types.js';

/** Options of a client. */
export interface ClientOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:4780` (a trailing slash is dropped). */
  url: string;
  /** Bearer token: a user token (`org_u_…`), an MCP node key or the admin token. */
  token?: string;
  /** An undici dispatcher (tests, proxies). */
  dispatcher?: Dispatcher;
  /** Options of every chat stream (reconnection policy). */
  stream?: ChatStreamOptions;
}

const enc = encodeURIComponent;
const structurePath = (id: string) => `/api/org/structures/${enc(id)}`;
const nodePath = (id: string, roleId: string) => `${structurePath(id)}/agents/${enc(roleId)}`;

/** A client of one org server. */
export class OrgClient {
  readonly url: string;
  readonly #transport: Transport;
  readonly #stream: ChatStreamOptions;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.#transport = {
      url: this.url,
      ...(options.token ? { token: options.token } : {}),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    };
    this.#stream = options.stream ?? {};
  }

  /** True when the client has a token. */
  get hasToken(): boolean {
    return this.#transport.token !== undefined;
  }

  #call<T>(path: string, options?: CallOptions): Promise<T> {
    return call<T>(this.#transport, path, options);
  }

  // ── instance ────────────────────────────────────────────────────────────────

  /** `GET /api/org/health` (no token needed). */
  health(): Promise<Health> {
    return this.#call('/api/org/health', { auth: false });
  }

  /**
   * Who the token belongs to: `GET /api/org/whoami` when the server has it, else the
   * structures the token can see (which also proves the token valid).
   */
  async whoami(): Promise<WhoAmI> {
    try {
      const me = await this.#call<Partial<WhoAmI> & { user?: { email?: string } }>('/api/org/whoami');
      const structures = me.structures ?? (await this.listStructures()).structures;
      const email = me.email ?? me.user?.email;
      return { ...(me.kind ? { kind: me.kind } : {}), ...(email ? { email } : {}), structures };
    } catch (error) {
      // No such route on this server (404), or one a node key may not call (403): fall back.
      if (!isOrgError(error) || (error.code !== 'not_found' && error.code !== 'forbidden')) throw error;
    }
    try {
      return { structures: (await this.listStructures()).structures };
    } catch (error) {
      // An MCP node key is valid but may not list structures (people only).
      if (isOrgError(error) && error.code === 'forbidden') return { kind: 'mcp', structures: [] };
      throw error;
    }
  }

  /** `POST /api/org/users` (administrator only): the new user's token is shown once. */
  createUser(email: string): Promise<CreatedUser> {
    return this.#call('/api/org/users', { method: 'POST', body: { email } });
  }

  // ── structures and nodes ─────────────────────────────────────────────────────

  /** Structures the caller can access, with the caller's role. */
  listStructures(): Promise<{ structures: StructureSummary[] }> {
    return this.#call('/api/org/structures');
  }

  /** A structure with every node. */
  getStructure(id: string): Promise<StructureDetail> {
    return this.#call(structurePath(id));
  }

  /** Creates a structure from a template; the caller becomes its owner. */
  createStructure(name: string, template: string): Promise<CreatedStructure> {
    return this.#call('/api/org/structures', { method: 'POST', body: { name, template } });
  }

  /** Archived nodes of a structure. */
  archive(id: string): Promise<{ agents: ArchivedNodeRecord[] }> {
    return this.#call(`${structurePath(id)}/archive`);
  }

  /** The workspace log, newest first. */
  log(id: string, limit?: number): Promise<{ entries: LogEntry[] }> {
    return this.#call(`${structurePath(id)}/log`, { query: { limit } });
  }

  /** Adds a node. */
  addNode(structureId: string, node: NewNode): Promise<Node> {
    return this.#call(`${structurePath(structureId)}/agents`, { method: 'POST', body: node });
  }

  /** Changes a node's label, position, starting context or container URL. */
  patchNode(structureId: string, roleId: string, patch: NodePatch): Promise<Node> {
    return this.#call(nodePath(structureId, roleId), { method: 'PATCH', body: patch });
  }

  /** Deletes (archives) a childless node. */
  removeNode(structureId: string, roleId: string): Promise<void> {
    return this.#call(nodePath(structureId, roleId), { method: 'DELETE' });
  }

  /** Restores an archived node. */
  restoreNode(structureId: string, roleId: string): Promise<Node> {
    return this.#call(`${nodePath(structureId, roleId)}/restore`, { method: 'POST' });
  }

  // ── MCP keys, sharing ────────────────────────────────────────────────────────

  /** Mints an MCP key for a node: the token is in this answer only. */
  createKey(structureId: string, roleId: string, label?: string): Promise<CreatedKey> {
    return this.#call(`${nodePath(structureId, roleId)}/mcp-key`, { method: 'POST', body: label ? { label } : {} });
  }

  /** MCP keys of a node (never their tokens). */
  listKeys(structureId: string, roleId: string): Promise<{ keys: KeyListing[] }> {
    return this.#call(`${nodePath(structureId, roleId)}/mcp-keys`);
  }

  /** Revokes an MCP key at once. */
  revokeKey(structureId: string, roleId: string, keyId: string): Promise<void> {
    return this.#call(`${nodePath(structureId, roleId)}/mcp-key/${enc(keyId)}`, { method: 'DELETE' });
  }

  /** Invites an e-mail address to a structure with a role. */
  share(structureId: string, email: string, role: Role): Promise<{ invite: Invite }> {
    return this.#call(`${structurePath(structureId)}/share`, { method: 'POST', body: { email, role } });
  }

  /** Members and open invites of a structure. */
  members(structureId: string): Promise<Members> {
    return this.#call(`${structurePath(structureId)}/members`);
  }

  /** Accepts an invite with its one-time token (no bearer). */
  acceptInvite(token: string): Promise<Acceptance> {
    return this.#call('/api/org/invites/accept', { method: 'POST', body: { token }, auth: false });
  }

  // ── skills ───────────────────────────────────────────────────────────────────

  /** Skills visible to a structure. */
  listSkills(query: SkillListQuery = {}): Promise<{ skills: SkillListEntry[] }> {
    return this.#call('/api/org/knowledge/skills', {
      query: {
        structure_id: query.structure_id,
        status: query.status?.length ? query.status.join(',') : undefined,
        category: query.category,
        tag: query.tag,
      },
    });
  }

  /** One skill of any status, with its steps. */
  getSkill(slug: string): Promise<Skill> {
    return this.#call(`/api/org/knowledge/skills/${enc(slug)}`);
  }

  /** Git commits of a skill's file. */
  skillHistory(slug: string): Promise<{ commits: SkillCommit[] }> {
    return this.#call(`/api/org/knowledge/skills/${enc(slug)}/history`);
  }

  /** Creates or updates a skill; `created` tells which. */
  async saveSkill(write: SkillWrite): Promise<{ skill: Skill; created: boolean }> {
    const response = await send(this.#transport, '/api/org/knowledge/skills', { method: 'POST', body: write });
    return { skill: (await response.body.json()) as Skill, created: response.statusCode === 201 };
  }

  /** Deletes a skill (restorable). */
  deleteSkill(slug: string, structureId: string): Promise<void> {
    return this.#call(`/api/org/knowledge/skills/${enc(slug)}`, { method: 'DELETE', query: { structure_id: structureId } });
  }

  /** Restores the newest deleted version of a skill. */
  restoreSkill(slug: string, structureId: string): Promise<Skill> {
    return this.#call(`/api/org/knowledge/skills/${enc(slug)}/restore`, { method: 'POST', query: { structure_id: structureId } });
  }

  /** Deleted skills that can be restored. */
  deletedSkills(structureId?: string): Promise<{ skills: DeletedSkill[] }> {
    return this.#call('/api/org/knowledge/deleted', { query: { structure_id: structureId } });
  }

  /** What an agent of the structure would match. */
  searchSkills(query: string, options: { structure_id?: string; limit?: number } = {}): Promise<{ matches: SearchMatch[] }> {
    return this.#call('/api/org/knowledge/search', {
      method: 'POST',
      body: { query, ...(options.structure_id ? { structure_id: options.structure_id } : {}), ...(options.limit ? { limit: options.limit } : {}) },
    });
  }

  /** Skill files the server could not load. */
  skillProblems(): Promise<{ problems: SkillProblem[] }> {
    return this.#call('/api/org/knowledge/problems');
  }

  // ── chat ─────────────────────────────────────────────────────────────────────

  /** Sends a message and returns the live stream of the turn. */
  chat(message: ChatMessage, options: ChatStreamOptions = {}): Promise<ChatStream> {
    return openChatStream(this.#transport, message, { ...this.#stream, ...options });
  }

  /** Follows a run (replaying after `after`), e.g. one still running from an earlier session. */
  followRun(runId: string, after = 0, options: ChatStreamOptions = {}): ChatStream {
    return followRun(this.#transport, runId, after, { ...this.#stream, ...options });
  }

  /** Cancels a running turn (a finished one is left alone). */
  cancelRun(runId: string): Promise<void> {
    return cancelRun(this.#transport, runId);
  }

  /** Sends a message and waits for the whole turn. */
  chatSync(message: ChatMessage): Promise<SyncResult> {
    return this.#call('/api/org/chat/message/sync', { method: 'POST', body: message, headersTimeoutMs: 600_000, bodyTimeoutMs: 600_000 });
  }

  /** A node's history, newest first. */
  history(structureId: string, roleId: string, options: { limit?: number; before?: string } = {}): Promise<HistoryMessage[]> {
    return this.#call('/api/org/chat/history', { query: { structure_id: structureId, role_id: roleId, limit: options.limit, before: options.before } });
  }

  /** Artifacts on a node's shelf. */
  artifacts(structureId: string, roleId: string): Promise<{ artifacts: ArtifactInfo[] }> {
    return this.#call(`${nodePath(structureId, roleId)}/artifacts`);
  }

  /** Downloads one artifact. */
  async downloadArtifact(structureId: string, roleId: string, name: string): Promise<{ contentType: string; data: Buffer }> {
    const response = await send(this.#transport, `${nodePath(structureId, roleId)}/artifacts/${enc(name)}`, { headers: { accept: '*/*' } });
    const data = Buffer.from(await response.body.arrayBuffer());
    const type = response.headers['content-type'];
    return { contentType: typeof type === 'string' ? type : 'application/octet-stream', data };
  }
}
