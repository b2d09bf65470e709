/**
 * The remote backend of the MCP tools, used by `org mcp`: the HTTP API of an org
 * server reached with undici and the node key as bearer. `do` streams
 * POST /api/org/chat/message and parses its server-sent events with eventsource-parser.
 */
import { createParser } from 'eventsource-parser';
import { request, type Dispatcher } from 'undici';
import type { ChatEvent } from '../core/chat/index.js';
import { ERROR_STATUS, OrgError, type ErrorCode } from '../core/errors.js';
import type { SearchMatch, SkillListEntry } from '../core/skills/index.js';
import { ToolError, type OrgToolBackend, type Peer, type ToolSkill, type TurnOutcome } from './backend.js';
import { artifactUrl } from './app-backend.js';

/** Options of {@link connectRemoteBackend}. */
export interface RemoteBackendOptions {
  /** Base URL of the org server, e.g. `http://127.0.0.1:4780`. */
  url: string;
  /** An MCP node key (`org_mcp_…`). */
  key: string;
  /** undici dispatcher (tests). */
  dispatcher?: Dispatcher;
}

/** The node a key belongs to, from GET /api/org/whoami. */
export interface KeyIdentity {
  id: string;
  structure_id: string;
  role_id: string;
  label: string;
}

interface WhoAmI {
  kind: string;
  key?: KeyIdentity;
}

interface StructureDetailBody {
  agents: { id: string; role_id: string; label: string; parent_id: string | null; state: string }[];
}

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in ERROR_STATUS;
}

/** An OrgError from an error response (problem details when the server sent them). */
function problemError(status: number, text: string): OrgError {
  let detail = `the server answered ${status}`;
  let code: ErrorCode = status === 401 ? 'unauthorized' : status === 404 ? 'not_found' : status >= 500 ? 'internal' : 'invalid_request';
  try {
    const body = JSON.parse(text) as { detail?: unknown; code?: unknown };
    if (typeof body.detail === 'string') detail = body.detail;
    if (isErrorCode(body.code)) code = body.code;
  } catch {
    // Not problem details: keep the status line.
  }
  return new OrgError(code, detail);
}

/**
 * Connects to an org server with a node key: checks the key (GET /api/org/whoami) and
 * returns the backend for its node. Throws OrgError (unauthorized, forbidden,
 * unavailable) when the server is unreachable or the key is not a live node key.
 */
export async function connectRemoteBackend(options: RemoteBackendOptions): Promise<OrgToolBackend & { identity: KeyIdentity }> {
  const base = options.url.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${options.key}` };

  const send = async (method: 'GET' | 'POST', path: string, body?: unknown, accept = 'application/json', signal?: AbortSignal) => {
    try {
      return await request(`${base}${path}`, {
        method,
        headers: { ...headers, accept, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new OrgError('unavailable', `cannot reach the org server at ${base}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const response = await send(method, path, body);
    const text = await response.body.text();
    if (response.statusCode >= 400) throw problemError(response.statusCode, text);
    return JSON.parse(text) as T;
  };

  const who = await call<WhoAmI>('GET', '/api/org/whoami');
  if (who.kind !== 'mcp' || !who.key) throw new OrgError('forbidden', 'org mcp needs an MCP node key (org_mcp_…), not a user token');
  const identity = who.key;

  return {
    identity,

    async runTurn(input, watcher = {}) {
      const payload = { structure_id: identity.structure_id, role_id: identity.role_id, message: input.message, ...(input.attachments ? { attachments: input.attachments } : {}) };
      let response;
      try {
        response = await send('POST', '/api/org/chat/message', payload, 'text/event-stream', watcher.signal);
      } catch (error) {
        if (watcher.signal?.aborted) throw new ToolError('stopped waiting for the turn');
        throw error;
      }
      if (response.statusCode !== 200) throw problemError(response.statusCode, await response.body.text());
      const runHeader = response.headers['x-org-run-id'];
      const runId = (Array.isArray(runHeader) ? runHeader[0] : runHeader) ?? '';
      let terminal: ChatEvent | undefined;
      // An error frame without an id is the stream's own end (e.g. "key revoked"), not the turn's.
      let streamEnded: string | undefined;
      let count = 0;
      const parser = createParser({
        onEvent(message) {
          let event: ChatEvent;
          try {
            event = JSON.parse(message.data) as ChatEvent;
          } catch {
            return;
          }
          if (!message.id && event.type === 'error') {
            streamEnded = event.content.message;
            return;
          }
          count += 1;
          watcher.onEvent?.(event, message.id ? Number(message.id) : count);
          if (event.type === 'complete' || event.type === 'error') terminal = event;
        },
      });
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body) {
          parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
          if (terminal || streamEnded) break;
        }
      } catch (error) {
        if (watcher.signal?.aborted) throw new ToolError(`stopped waiting; the turn goes on (run ${runId})`);
        throw new ToolError(`the stream broke before the turn ended (run ${runId}): ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        response.body.destroy();
      }
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
      return (await call<{ skills: SkillListEntry[] }>('GET', '/api/org/knowledge/skills')).skills;
    },

    async listPeers() {
      const detail = await call<StructureDetailBody>('GET', `/api/org/structures/${identity.structure_id}`);
      const roleOf = new Map(detail.agents.map((node) => [node.id, node.role_id]));
      const self = detail.agents.find((node) => node.role_id === identity.role_id);
      if (!self) throw new ToolError(`node ${identity.role_id} no longer exists`);
      const peers: Peer[] = detail.agents
        .filter((node) => node.id !== self.id)
        .map((node) => ({ role_id: node.role_id, label: node.label, state: node.state, parent: node.parent_id ? (roleOf.get(node.parent_id) ?? null) : null }));
      return { self: { role_id: self.role_id, label: self.label }, peers };
    },

    async searchSkills(query, limit) {
      const body = await call<{ matches: SearchMatch[] }>('POST', '/api/org/knowledge/search', { query, ...(limit === undefined ? {} : { limit }) });
      return body.matches;
    },

    async readSkill(slug) {
      if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug)) throw new ToolError(`skill ${JSON.stringify(slug)} not found`);
      const skill = await call<ToolSkill>('GET', `/api/org/knowledge/skills/${slug}`);
      return { slug: skill.slug, frontmatter: skill.frontmatter, body: skill.body, steps: skill.steps ?? [] };
    },
  };
}
