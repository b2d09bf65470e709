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
import { networkError } from './problem.js';
import { call, exchangeJson, send, type CallOptions, type FetchLike, type RequestOptions, type Transport } from './http.js';
import { cancelRun, followRun, openChatStream, type ChatStream, type ChatStreamOptions } from './stream.js';
import type {
  Acceptance,
  AuditPage,
  AuditQuery,
  ImportReport,
  CreatedWebhook,
  DeliveryStatus,
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  ArchivedNodeRecord,
  ArtifactInfo,
  ChatMessage,
  CreatedKey,
  CreatedStructure,
  CreatedUser,
  DeletedSkill,
  Identity,
  Health,
  HistoryMessage,
  Invite,
  KeyListing,
  LogEntry,
  Member,
  Members,
  NewNode,
  Node,
  NodePatch,
  Role,
  SearchExplanation,
  SearchMatch,
  SkillGap,
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
  TimelineEntry,
} from './types.js';

export interface ClientOptions {
  /**
   * Base URL of the server, e.g. `http://127.0.0.1:4780` (a trailing slash is dropped);
   * `''` in a browser page served by the org server itself (same origin).
   */
  url: string;
  /** Bearer token: a user token (`org_u_…`), an MCP node key or the admin token. */
  token?: string;
  /** The fetch to use (default: the global one). Tests and proxies pass their own. */
  fetch?: FetchLike;
  /** How long a call may take, in ms (default 30 s; streams time only their headers). */
  timeoutMs?: number;
  /** Called on any 401 to a call that carried the token (the web goes back to sign-in). */
  onUnauthorized?: () => void;
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
      // Looked up at each call, so a test or a polyfill that replaces the global is seen.
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(options.token ? { token: options.token } : {}),
      ...(options.onUnauthorized ? { onUnauthorized: options.onUnauthorized } : {}),
    };
    this.#stream = options.stream ?? {};
  }

  /** True when the client has a token. */
  get hasToken(): boolean {
    return this.#transport.token !== undefined;
  }

  #call<T>(path: string, options: CallOptions = {}, request: RequestOptions = {}): Promise<T> {
    return call<T>(this.#transport, path, request.signal ? { ...options, signal: request.signal } : options);
  }

  // ── instance ────────────────────────────────────────────────────────────────

  /** `GET /api/org/health` (no token needed). */
  health(request?: RequestOptions): Promise<Health> {
    return this.#call('/api/org/health', { auth: false }, request);
  }

  /** `GET /api/org/whoami`: the administrator, a user, or an MCP node key with its structure and node. */
  identify(request?: RequestOptions): Promise<Identity> {
    return this.#call('/api/org/whoami', {}, request);
  }

  /**
   * Who the token belongs to and the structures it opens: `identify()` plus the
   * structure list (which a node key may not read: then it has none).
   */
  async whoami(request?: RequestOptions): Promise<WhoAmI> {
    const me = await this.identify(request);
    if (me.kind === 'mcp') return { kind: me.kind, admin: false, structures: [] };
    const { structures } = await this.listStructures(request);
    return { kind: me.kind, admin: me.admin === true, ...(me.user ? { email: me.user.email } : {}), structures };
  }

  /** `POST /api/org/users` (administrator only): the new user's token is shown once. */
  createUser(email: string, request?: RequestOptions): Promise<CreatedUser> {
    return this.#call('/api/org/users', { method: 'POST', body: { email } }, request);
  }

  /** `POST /api/org/users/me/token`: a new token for the caller (shown once); the one this client uses stops working. */
  rotateToken(request?: RequestOptions): Promise<CreatedUser> {
    return this.#call('/api/org/users/me/token', { method: 'POST' }, request);
  }

  /** `POST /api/org/users/{id}/token` (administrator only): a new token for the user (shown once); their old one stops working. */
  resetUserToken(userId: string, request?: RequestOptions): Promise<CreatedUser> {
    return this.#call(`/api/org/users/${encodeURIComponent(userId)}/token`, { method: 'POST' }, request);
  }

  // ── structures and nodes ─────────────────────────────────────────────────────

  /** Structures the caller can access, with the caller's role. */
  listStructures(request?: RequestOptions): Promise<{ structures: StructureSummary[] }> {
    return this.#call('/api/org/structures', {}, request);
  }

  /** A structure with every node. */
  getStructure(id: string, request?: RequestOptions): Promise<StructureDetail> {
    return this.#call(structurePath(id), {}, request);
  }

  /** Creates a structure, from a template when one is named (the server's default is `blank`); the caller becomes its owner. */
  createStructure(name: string, template?: string, request?: RequestOptions): Promise<CreatedStructure> {
    return this.#call('/api/org/structures', { method: 'POST', body: { name, ...(template ? { template } : {}) } }, request);
  }

  /** Archived nodes of a structure. */
  archive(id: string, request?: RequestOptions): Promise<{ agents: ArchivedNodeRecord[] }> {
    return this.#call(`${structurePath(id)}/archive`, {}, request);
  }

  /** The workspace log (decisions and milestones), newest first. */
  log(id: string, limit?: number, request?: RequestOptions): Promise<{ entries: LogEntry[] }> {
    return this.#call(`${structurePath(id)}/log`, { query: { limit } }, request);
  }

  addNode(structureId: string, node: NewNode, request?: RequestOptions): Promise<Node> {
    return this.#call(`${structurePath(structureId)}/agents`, { method: 'POST', body: node }, request);
  }

  /** Changes a node's label, position, starting context or container URL, or moves it under another parent. */
  patchNode(structureId: string, roleId: string, patch: NodePatch, request?: RequestOptions): Promise<Node> {
    return this.#call(nodePath(structureId, roleId), { method: 'PATCH', body: patch }, request);
  }

  /** Deletes (archives) a childless node. */
  removeNode(structureId: string, roleId: string, request?: RequestOptions): Promise<void> {
    return this.#call(nodePath(structureId, roleId), { method: 'DELETE' }, request);
  }

  /** What happened to a node (created, updated, moved, archived, restored), oldest first; also for an archived node. */
  timeline(structureId: string, roleId: string, request?: RequestOptions): Promise<{ entries: TimelineEntry[] }> {
    return this.#call(`${nodePath(structureId, roleId)}/timeline`, {}, request);
  }

  /** Restores an archived node. */
  restoreNode(structureId: string, roleId: string, request?: RequestOptions): Promise<Node> {
    return this.#call(`${nodePath(structureId, roleId)}/restore`, { method: 'POST' }, request);
  }

  // ── MCP keys, sharing, members ───────────────────────────────────────────────

  /** Mints an MCP key for a node: the token is in this answer only. */
  createKey(structureId: string, roleId: string, label?: string, request?: RequestOptions): Promise<CreatedKey> {
    return this.#call(`${nodePath(structureId, roleId)}/mcp-key`, { method: 'POST', body: label ? { label } : {} }, request);
  }

  /** MCP keys of a node (never their tokens). */
  listKeys(structureId: string, roleId: string, request?: RequestOptions): Promise<{ keys: KeyListing[] }> {
    return this.#call(`${nodePath(structureId, roleId)}/mcp-keys`, {}, request);
  }

  /** Revokes an MCP key at once. */
  revokeKey(structureId: string, roleId: string, keyId: string, request?: RequestOptions): Promise<void> {
    return this.#call(`${nodePath(structureId, roleId)}/mcp-key/${enc(keyId)}`, { method: 'DELETE' }, request);
  }

  /** Invites an e-mail address to a structure with a role. */
  share(structureId: string, email: string, role: Role, request?: RequestOptions): Promise<{ invite: Invite }> {
    return this.#call(`${structurePath(structureId)}/share`, { method: 'POST', body: { email, role } }, request);
  }

  /** Members and open invites of a structure. */
  members(structureId: string, request?: RequestOptions): Promise<Members> {
    return this.#call(`${structurePath(structureId)}/members`, {}, request);
  }

  /** Changes a member's role (the last owner cannot be demoted). */
  setMemberRole(structureId: string, userId: string, role: Role, request?: RequestOptions): Promise<Member> {
    return this.#call(`${structurePath(structureId)}/members/${enc(userId)}`, { method: 'PATCH', body: { role } }, request);
  }

  /** Removes a member from a structure (the last owner cannot be removed). */
  removeMember(structureId: string, userId: string, request?: RequestOptions): Promise<void> {
    return this.#call(`${structurePath(structureId)}/members/${enc(userId)}`, { method: 'DELETE' }, request);
  }

  // ── Audit ───────────────────────────────────────────────────────────────────

  /** A structure's audit log, newest first (owner); page on with `before: next_before`. */
  structureAudit(structureId: string, query: AuditQuery = {}, request?: RequestOptions): Promise<AuditPage> {
    return this.#call(`${structurePath(structureId)}/audit`, { query: { ...query } }, request);
  }

  /** The instance's whole audit log, newest first (administrator). */
  instanceAudit(query: AuditQuery = {}, request?: RequestOptions): Promise<AuditPage> {
    return this.#call('/api/org/audit', { query: { ...query } }, request);
  }

  // ── Webhooks ────────────────────────────────────────────────────────────────

  /** Registers a webhook: the answer carries its signing secret, once. */
  createWebhook(structureId: string, input: WebhookCreate, request?: RequestOptions): Promise<CreatedWebhook> {
    return this.#call(`${structurePath(structureId)}/webhooks`, { method: 'POST', body: input }, request);
  }

  /** The webhooks of a structure (never their secrets). */
  listWebhooks(structureId: string, request?: RequestOptions): Promise<{ webhooks: Webhook[] }> {
    return this.#call(`${structurePath(structureId)}/webhooks`, {}, request);
  }

  /** Removes a webhook; its pending deliveries are dropped. */
  removeWebhook(structureId: string, webhookId: string, request?: RequestOptions): Promise<void> {
    return this.#call(`${structurePath(structureId)}/webhooks/${enc(webhookId)}`, { method: 'DELETE' }, request);
  }

  /** A webhook's deliveries, newest first. */
  webhookDeliveries(structureId: string, webhookId: string, query: { limit?: number; status?: DeliveryStatus } = {}, request?: RequestOptions): Promise<{ deliveries: WebhookDelivery[] }> {
    return this.#call(`${structurePath(structureId)}/webhooks/${enc(webhookId)}/deliveries`, { query: { limit: query.limit, status: query.status } }, request);
  }

  /** Revokes a pending invite: its token stops working. */
  revokeInvite(structureId: string, inviteId: string, request?: RequestOptions): Promise<void> {
    return this.#call(`${structurePath(structureId)}/invites/${enc(inviteId)}`, { method: 'DELETE' }, request);
  }

  /** Accepts an invite with its one-time token (no bearer). */
  acceptInvite(token: string, request?: RequestOptions): Promise<Acceptance> {
    return this.#call('/api/org/invites/accept', { method: 'POST', body: { token }, auth: false }, request);
  }

  // ── skills ───────────────────────────────────────────────────────────────────

  /** Skills visible to a structure (a node key: its own structure). */
  listSkills(query: SkillListQuery = {}, request?: RequestOptions): Promise<{ skills: SkillListEntry[] }> {
    return this.#call(
      '/api/org/knowledge/skills',
      {
        query: {
          structure_id: query.structure_id,
          status: query.status?.length ? query.status.join(',') : undefined,
          category: query.category,
          tag: query.tag,
        },
      },
      request,
    );
  }

  /**
   * One skill of any status, with its steps: with `structureId`, that structure's own
   * skill of the slug, else the instance skill; without, the instance skill, else the one
   * of the caller's structures that has it.
   */
  getSkill(slug: string, structureId?: string, request?: RequestOptions): Promise<Skill> {
    return this.#call(`/api/org/knowledge/skills/${enc(slug)}`, { query: { structure_id: structureId } }, request);
  }

  /** Git commits of a skill's file (the skill found as {@link getSkill} finds it). */
  skillHistory(slug: string, structureId?: string, request?: RequestOptions): Promise<{ commits: SkillCommit[] }> {
    return this.#call(`/api/org/knowledge/skills/${enc(slug)}/history`, { query: { structure_id: structureId } }, request);
  }

  /** Copies an instance skill into a structure as its own skill (`as`: the copy's slug, default the original's). */
  forkSkill(slug: string, structureId: string, as?: string, request?: RequestOptions): Promise<Skill> {
    return this.#call(`/api/org/knowledge/skills/${enc(slug)}/fork`, { method: 'POST', body: { structure_id: structureId, ...(as ? { slug: as } : {}) } }, request);
  }

  /** Creates or updates a skill; `created` tells which. */
  async saveSkill(write: SkillWrite, request?: RequestOptions): Promise<{ skill: Skill; created: boolean }> {
    const { status, body } = await exchangeJson<Skill>(this.#transport, '/api/org/knowledge/skills', {
      method: 'POST',
      body: write,
      ...(request?.signal ? { signal: request.signal } : {}),
    });
    return { skill: body, created: status === 201 };
  }

  /**
   * Creates a skill, never replacing one: sent with `If-None-Match: *`, so a slug that is
   * taken (even by a skill created since the caller last looked) fails with 409
   * `already_exists` and the stored skill is untouched.
   */
  async createSkill(write: SkillWrite, request?: RequestOptions): Promise<Skill> {
    const { body } = await exchangeJson<Skill>(this.#transport, '/api/org/knowledge/skills', {
      method: 'POST',
      body: write,
      headers: { 'if-none-match': '*' },
      ...(request?.signal ? { signal: request.signal } : {}),
    });
    return body;
  }

  /** Deletes a structure's own skill (restorable); without `structureId`, an instance skill (the instance administrator). */
  deleteSkill(slug: string, structureId: string | undefined, request?: RequestOptions): Promise<void> {
    return this.#call(`/api/org/knowledge/skills/${enc(slug)}`, { method: 'DELETE', query: { structure_id: structureId } }, request);
  }

  /** Restores the newest deleted version of a structure's own skill; without `structureId`, of an instance skill (the instance administrator). */
  restoreSkill(slug: string, structureId: string | undefined, request?: RequestOptions): Promise<Skill> {
    return this.#call(`/api/org/knowledge/skills/${enc(slug)}/restore`, { method: 'POST', query: { structure_id: structureId } }, request);
  }

  /** Deleted skills that can be restored. */
  deletedSkills(structureId?: string, request?: RequestOptions): Promise<{ skills: DeletedSkill[] }> {
    return this.#call('/api/org/knowledge/deleted', { query: { structure_id: structureId } }, request);
  }

  /** What an agent of the structure would match; with `explain` (or `why`: slugs to account for), why each candidate was kept or cut. */
  searchSkills(
    query: string,
    options: { structure_id?: string; limit?: number; explain?: boolean; why?: string[] } = {},
    request?: RequestOptions,
  ): Promise<{ matches: SearchMatch[]; explain?: SearchExplanation }> {
    return this.#call(
      '/api/org/knowledge/search',
      {
        method: 'POST',
        body: {
          query,
          ...(options.structure_id ? { structure_id: options.structure_id } : {}),
          ...(options.limit ? { limit: options.limit } : {}),
          ...(options.explain ? { explain: true } : {}),
          ...(options.why?.length ? { why: options.why } : {}),
        },
      },
      request,
    );
  }

  /** Recent chat messages that matched no skill or only weakly, grouped, most frequent first (operator). */
  skillGaps(options: { structure_id?: string; since?: string; limit?: number } = {}, request?: RequestOptions): Promise<{ gaps: SkillGap[] }> {
    return this.#call(
      '/api/org/knowledge/gaps',
      { query: { structure_id: options.structure_id, since: options.since, ...(options.limit ? { limit: String(options.limit) } : {}) } },
      request,
    );
  }

  /** Skill files the server could not load. */
  skillProblems(request?: RequestOptions): Promise<{ problems: SkillProblem[] }> {
    return this.#call('/api/org/knowledge/problems', {}, request);
  }

  // ── chat ─────────────────────────────────────────────────────────────────────

  /**
   * Sends a message and returns the live stream of the turn. `headers` go with the
   * message request only, e.g. the caller's W3C `traceparent` and `tracestate`.
   */
  chat(message: ChatMessage, options: ChatStreamOptions = {}, headers: Readonly<Record<string, string>> = {}): Promise<ChatStream> {
    return openChatStream(this.#transport, message, { ...this.#stream, ...options }, headers);
  }

  /** Follows a run (replaying after `after`), e.g. one still running from an earlier session. */
  followRun(runId: string, after = 0, options: ChatStreamOptions = {}): ChatStream {
    return followRun(this.#transport, runId, after, { ...this.#stream, ...options });
  }

  /** Cancels a running turn (a finished one is left alone). */
  cancelRun(runId: string): Promise<void> {
    return cancelRun(this.#transport, runId);
  }

  /** Sends a message and waits for the whole turn (no time limit of its own: the server answers 504 past its sync timeout). */
  chatSync(message: ChatMessage, request?: RequestOptions): Promise<SyncResult> {
    return this.#call('/api/org/chat/message/sync', { method: 'POST', body: message, timeout: 0 }, request);
  }

  /** A node's history, newest first. */
  history(structureId: string, roleId: string, options: { limit?: number; before?: string } = {}, request?: RequestOptions): Promise<HistoryMessage[]> {
    return this.#call('/api/org/chat/history', { query: { structure_id: structureId, role_id: roleId, limit: options.limit, before: options.before } }, request);
  }

  /** Artifacts on a node's shelf. */
  artifacts(structureId: string, roleId: string, request?: RequestOptions): Promise<{ artifacts: ArtifactInfo[] }> {
    return this.#call(`${nodePath(structureId, roleId)}/artifacts`, {}, request);
  }

  /** A skill as an Agent Skills zip (`<slug>/SKILL.md` and its files). */
  async exportSkill(slug: string, structureId?: string, request?: RequestOptions): Promise<Uint8Array> {
    const response = await send(this.#transport, `/api/org/knowledge/skills/${enc(slug)}/export`, {
      query: { structure_id: structureId },
      headers: { accept: 'application/zip' },
      ...(request?.signal ? { signal: request.signal } : {}),
    });
    try {
      return new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      if (request?.signal?.aborted) throw error;
      throw networkError(this.url, error);
    }
  }

  /** Imports the Agent Skills folders of a zip: a report only unless `dryRun` is false. */
  importSkills(zip: Uint8Array, options: { structure_id: string; dryRun?: boolean }, request?: RequestOptions): Promise<ImportReport> {
    return this.#call(
      '/api/org/knowledge/import',
      { method: 'POST', query: { structure_id: options.structure_id, dry_run: options.dryRun === false ? 'false' : 'true' }, raw: { data: zip, contentType: 'application/zip' } },
      request,
    );
  }

  /** Downloads one artifact (as bytes, with its content type). */
  async downloadArtifact(structureId: string, roleId: string, name: string, request?: RequestOptions): Promise<{ contentType: string; data: Uint8Array }> {
    const response = await send(this.#transport, `${nodePath(structureId, roleId)}/artifacts/${enc(name)}`, {
      headers: { accept: '*/*' },
      ...(request?.signal ? { signal: request.signal } : {}),
    });
    let data: Uint8Array;
    try {
      data = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      if (request?.signal?.aborted) throw error;
      throw networkError(this.url, error);
    }
    return { contentType: response.headers.get('content-type') ?? 'application/octet-stream', data };
  }
}
