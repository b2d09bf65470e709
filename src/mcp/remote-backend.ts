/**
 * The remote backend of the MCP surface, used by `org mcp`: the HTTP API of an org
 * server through the org client, with the node key as bearer. Turns started here are
 * followed over their chat stream (which resumes by itself after a drop) and kept in
 * memory for `tasks/get`; older turns of the node are read from its history.
 */
import { OrgClient, type ChatStream, type FetchLike } from '../client/index.js';
import type { ChatEvent } from '../core/chat/index.js';
import { OrgError, isOrgError } from '../core/errors.js';
import { agentSkills } from '../core/skills/index.js';
import { artifactUrl } from './app-backend.js';
import { ToolError, type KeyIdentity, type OrgToolBackend, type TurnOutcome, type TurnSnapshot } from './backend.js';
import { outcomeOf } from './outcome.js';

/** Options of {@link connectRemoteBackend}. */
export interface RemoteBackendOptions {
  /** Base URL of the org server, e.g. `http://127.0.0.1:4780`. */
  url: string;
  /** An MCP node key (`org_mcp_…`). */
  key: string;
  /** The fetch the client uses (tests); default the global one. */
  fetch?: FetchLike;
}

interface Followed {
  events: ChatEvent[];
  seqs: number[];
  listeners: Set<(event: ChatEvent, seq: number) => void>;
  created_at: string;
  done: Promise<TurnOutcome>;
}

const notFoundIsUndefined = <T>(error: unknown): T | undefined => {
  if (isOrgError(error) && error.code === 'not_found') return undefined;
  throw error;
};

/**
 * Connects to an org server with a node key: checks the key (GET /api/org/whoami) and
 * returns the backend for its node. Throws OrgError (unauthorized, forbidden,
 * unavailable) when the server is unreachable or the key is not a live node key.
 */
export async function connectRemoteBackend(options: RemoteBackendOptions): Promise<OrgToolBackend> {
  const client = new OrgClient({ url: options.url, token: options.key, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const who = await client.identify();
  if (who.kind !== 'mcp' || !who.key) throw new OrgError('forbidden', 'org mcp needs an MCP node key (org_mcp_…), not a user token');
  const identity: KeyIdentity = who.key;
  const turns = new Map<string, Followed>();

  const follow = (stream: ChatStream): Followed => {
    const followed: Followed = { events: [], seqs: [], listeners: new Set(), created_at: new Date().toISOString(), done: Promise.resolve(undefined as never) };
    followed.done = (async () => {
      try {
        for await (const { seq, event } of stream) {
          // An error frame without an id is the stream's own end (e.g. "key revoked"), not the turn's.
          if (seq === undefined && event.type === 'error') throw new ToolError(`${event.content.message}; the turn goes on (run ${stream.runId})`);
          const n = seq ?? followed.events.length + 1;
          followed.events.push(event);
          followed.seqs.push(n);
          for (const listener of [...followed.listeners]) listener(event, n);
        }
      } catch (error) {
        if (error instanceof ToolError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        return { run_id: stream.runId, status: 'error', summary: message, artifacts: [], learned: [] } satisfies TurnOutcome;
      }
      return outcomeOf(stream.runId, followed.events) ?? { run_id: stream.runId, status: 'error', summary: 'the stream ended before the turn did', artifacts: [], learned: [] };
    })();
    // Whoever waits sees a rejection; nobody waiting (a task) is not an unhandled one.
    followed.done.catch(() => undefined);
    turns.set(stream.runId, followed);
    return followed;
  };

  const fromHistory = async (runId: string): Promise<TurnSnapshot | undefined> => {
    const messages = await client.history(identity.structure_id, identity.role_id, { limit: 500 }).catch(notFoundIsUndefined<never>);
    const message = messages?.find((candidate) => candidate.sender === 'agent' && candidate.run_id === runId);
    if (!message) return undefined;
    return {
      run_id: runId,
      status: message.status,
      events: message.events,
      created_at: message.created_at,
      updated_at: message.completed_at ?? message.events.at(-1)?.timestamp ?? message.created_at,
    };
  };

  return {
    identity,

    async startTurn(input) {
      // The caller's trace context travels as the W3C headers, which the server's request span continues.
      const stream = await client.chat(
        { structure_id: identity.structure_id, role_id: identity.role_id, message: input.message, ...(input.attachments ? { attachments: input.attachments } : {}) },
        {},
        input.traceContext ?? {},
      );
      const followed = follow(stream);
      return {
        run_id: stream.runId,
        created_at: followed.created_at,
        follow(listener) {
          followed.events.forEach((event, index) => listener(event, followed.seqs[index] ?? index + 1));
          followed.listeners.add(listener);
          return () => followed.listeners.delete(listener);
        },
        done: followed.done,
      };
    },

    async inspectTurn(runId) {
      const followed = turns.get(runId);
      if (!followed) return fromHistory(runId);
      const outcome = outcomeOf(runId, followed.events);
      return {
        run_id: runId,
        status: outcome ? (outcome.status === 'complete' ? 'complete' : 'error') : 'running',
        events: [...followed.events],
        created_at: followed.created_at,
        updated_at: followed.events.at(-1)?.timestamp ?? followed.created_at,
      };
    },

    async awaitTurn(runId, signal) {
      const followed = turns.get(runId) ?? ((await fromHistory(runId)) ? follow(client.followRun(runId)) : undefined);
      if (!followed) return undefined;
      if (signal?.aborted) throw new ToolError('stopped waiting for the turn');
      return Promise.race([
        followed.done,
        new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new ToolError('stopped waiting for the turn')), { once: true })),
      ]);
    },

    async cancelTurn(runId) {
      try {
        await client.cancelRun(runId);
        return true;
      } catch (error) {
        if (isOrgError(error) && error.code === 'conflict') return false;
        throw error;
      }
    },

    async listSkills() {
      return (await client.listSkills({ structure_id: identity.structure_id })).skills;
    },

    async listPeers() {
      const detail = await client.getStructure(identity.structure_id);
      const roleOf = new Map(detail.agents.map((node) => [node.id, node.role_id]));
      const self = detail.agents.find((node) => node.role_id === identity.role_id);
      if (!self) throw new ToolError(`node ${identity.role_id} no longer exists`);
      const peers = detail.agents
        .filter((node) => node.id !== self.id)
        .map((node) => ({ role_id: node.role_id, label: node.label, state: node.state, parent: node.parent_id ? (roleOf.get(node.parent_id) ?? null) : null }));
      return { self: { role_id: self.role_id, label: self.label, state: self.state, parent: self.parent_id ? (roleOf.get(self.parent_id) ?? null) : null }, peers };
    },

    async searchSkills(query, limit) {
      return (await client.searchSkills(query, { structure_id: identity.structure_id, ...(limit === undefined ? {} : { limit }) })).matches;
    },

    async readSkill(slug) {
      if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug)) throw new ToolError(`skill ${JSON.stringify(slug)} not found`);
      const skill = await client.getSkill(slug).catch((error: unknown) => {
        if (isOrgError(error) && error.code === 'not_found') throw new ToolError(`skill ${JSON.stringify(slug)} not found`);
        throw error;
      });
      return { slug: skill.slug, frontmatter: { ...skill.frontmatter }, body: skill.body, steps: skill.steps ?? [] };
    },

    async readArtifact(name) {
      const found = await client.downloadArtifact(identity.structure_id, identity.role_id, name).catch(notFoundIsUndefined<never>);
      return found ? { name, content_type: found.contentType, data: new Uint8Array(found.data) } : undefined;
    },

    artifactUrl: (name) => artifactUrl(client.url, identity.structure_id, identity.role_id, name),

    async completeSkills() {
      return (await client.listSkills({ structure_id: identity.structure_id, status: ['complete'] })).skills.map((entry) => entry.slug).sort();
    },

    async skillFolder(slug) {
      const entries = (await client.listSkills({ structure_id: identity.structure_id, status: ['complete'] })).skills;
      if (!entries.some((entry) => entry.slug === slug)) return undefined;
      const zip = await client.exportSkill(slug, identity.structure_id).catch(notFoundIsUndefined<never>);
      return zip ? (await agentSkills.unzipFolders(zip)).folders.find((folder) => folder.name === slug) : undefined;
    },
  };
}
