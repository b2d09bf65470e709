/**
 * The remote backend of the MCP tools, used by `org mcp`: the HTTP API of an org server
 * through the one API client (src/client), with the node key as bearer. `do` follows the
 * chat stream of POST /api/org/chat/message, which resumes by itself after a dropped
 * connection.
 */
import { OrgClient, type FetchLike, type StreamedEvent } from '../client/index.js';
import type { ChatEvent } from '../core/chat/index.js';
import { OrgError } from '../core/errors.js';
import type { KeyIdentity } from '../core/schemas/index.js';
import { isValidSlug } from '../core/skills/index.js';
import { ToolError, type OrgToolBackend, type Peer, type TurnOutcome } from './backend.js';
import { artifactUrl } from './app-backend.js';

/** Options of {@link connectRemoteBackend}. */
export interface RemoteBackendOptions {
  /** Base URL of the org server, e.g. `http://127.0.0.1:4780`. */
  url: string;
  /** An MCP node key (`org_mcp_…`). */
  key: string;
  /** The fetch the client uses (tests); default the global one. */
  fetch?: FetchLike;
}

/** The node a key belongs to, from GET /api/org/whoami. */
export type { KeyIdentity };

/**
 * Connects to an org server with a node key: checks the key (GET /api/org/whoami) and
 * returns the backend for its node. Throws OrgError (unauthorized, forbidden,
 * unavailable) when the server is unreachable or the key is not a live node key.
 */
export async function connectRemoteBackend(options: RemoteBackendOptions): Promise<OrgToolBackend & { identity: KeyIdentity }> {
  const client = new OrgClient({ url: options.url, token: options.key, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const base = client.url;
  const who = await client.identify();
  if (who.kind !== 'mcp' || !who.key) throw new OrgError('forbidden', 'org mcp needs an MCP node key (org_mcp_…), not a user token');
  const identity = who.key;

  return {
    identity,

    async runTurn(input, watcher = {}) {
      const payload = { structure_id: identity.structure_id, role_id: identity.role_id, message: input.message, ...(input.attachments ? { attachments: input.attachments } : {}) };
      let stream;
      try {
        stream = await client.chat(payload, watcher.signal ? { signal: watcher.signal } : {});
      } catch (error) {
        if (watcher.signal?.aborted) throw new ToolError('stopped waiting for the turn');
        throw error;
      }
      const runId = stream.runId;
      let terminal: ChatEvent | undefined;
      // An error frame without an id is the stream's own end (e.g. "key revoked"), not the turn's.
      let streamEnded: string | undefined;
      let count = 0;
      try {
        for await (const { seq, event } of stream as AsyncIterable<StreamedEvent>) {
          if (seq === undefined && event.type === 'error') {
            streamEnded = event.content.message;
            break;
          }
          count += 1;
          watcher.onEvent?.(event, seq ?? count);
          if (event.type === 'complete' || event.type === 'error') terminal = event;
        }
      } catch (error) {
        throw new ToolError(`the stream broke before the turn ended (run ${runId}): ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        stream.close();
      }
      if (!terminal && watcher.signal?.aborted) throw new ToolError(`stopped waiting; the turn goes on (run ${runId})`);
      if (!terminal && streamEnded) throw new ToolError(`${streamEnded}; the turn goes on (run ${runId})`);
      const outcome: TurnOutcome = { run_id: runId, status: 'error', summary: `the stream ended before the turn did; follow it at ${base}/api/org/chat/runs/${runId}/events`, artifacts: [], artifact_urls: [] };
      if (terminal?.type === 'complete') {
        outcome.status = 'complete';
        outcome.summary = terminal.content.summary;
        outcome.artifacts = terminal.content.artifacts;
        outcome.artifact_urls = terminal.content.artifacts.map((name) => artifactUrl(base, identity.structure_id, identity.role_id, name));
      } else if (terminal?.type === 'error') {
        outcome.summary = terminal.content.message;
      }
      return outcome;
    },

    async listSkills() {
      return (await client.listSkills()).skills;
    },

    async listPeers() {
      const detail = await client.getStructure(identity.structure_id);
      const roleOf = new Map(detail.agents.map((node) => [node.id, node.role_id]));
      const self = detail.agents.find((node) => node.role_id === identity.role_id);
      if (!self) throw new ToolError(`node ${identity.role_id} no longer exists`);
      const peers: Peer[] = detail.agents
        .filter((node) => node.id !== self.id)
        .map((node) => ({ role_id: node.role_id, label: node.label, state: node.state, parent: node.parent_id ? (roleOf.get(node.parent_id) ?? null) : null }));
      return { self: { role_id: self.role_id, label: self.label }, peers };
    },

    async searchSkills(query, limit) {
      return (await client.searchSkills(query, limit === undefined ? {} : { limit })).matches;
    },

    async readSkill(slug) {
      if (!isValidSlug(slug)) throw new ToolError(`skill ${JSON.stringify(slug)} not found`);
      const skill = await client.getSkill(slug);
      return { slug: skill.slug, frontmatter: skill.frontmatter, body: skill.body, steps: skill.steps ?? [] };
    },
  };
}
