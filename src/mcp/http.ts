/**
 * MCP over Streamable HTTP for `org serve`: a handler of raw Node requests that the
 * HTTP server mounts at `/mcp` after authenticating the node key. One session (an
 * `McpServer` and its transport) per `initialize`, bound to the key that opened it;
 * each session is registered in the App's connection registry, so revoking the key
 * closes its sessions at once.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { McpKeyRecord } from '../core/auth/index.js';
import { createAppBackend } from './app-backend.js';
import type { OrgToolBackend } from './backend.js';
import { createOrgMcpServer } from './server.js';

/** One authenticated request to `/mcp`. */
export interface McpHttpRequest {
  /** The node key the request was authenticated with. */
  key: McpKeyRecord;
  request: IncomingMessage;
  response: ServerResponse;
  /** The parsed JSON body of a POST. */
  body: unknown;
}

/** The `/mcp` endpoint. */
export interface McpHttpHandler {
  /** Serves one request (POST, GET or DELETE); writes the whole response itself. */
  handle(input: McpHttpRequest): Promise<void>;
  /** Number of open sessions (all keys, or one key). */
  sessionCount(keyId?: string): number;
  /** Closes every session (shutdown). */
  close(): Promise<void>;
}

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpOptions {
  /** Version reported to clients. */
  version: string;
  /** Reports unexpected failures (default: stderr). */
  onError?: (error: unknown) => void;
}

interface Session {
  keyId: string;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  unregister: () => void;
  /** Aborted to end the `do` calls still waiting (their clients get a tool error, not silence). */
  stop: AbortController;
  /** Turns `do` calls of this session are waiting for. */
  inflight: Set<Promise<unknown>>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function rpcError(response: ServerResponse, status: number, code: number, message: string): void {
  if (response.headersSent) return void response.end();
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** Builds the `/mcp` handler over `app`. */
export function createMcpHttpHandler(app: App, options: McpHttpOptions): McpHttpHandler {
  const sessions = new Map<string, Session>();
  const onError =
    options.onError ?? ((error: unknown) => void process.stderr.write(`org: mcp: ${error instanceof Error ? error.message : String(error)}\n`));

  /**
   * Ends a session: from this instant its id is unknown (404). With a `reason`, `do`
   * calls still waiting first get a tool error carrying it, then the transport closes.
   */
  const closeSession = async (id: string, reason?: string): Promise<void> => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    session.unregister();
    if (reason && session.inflight.size > 0) {
      session.stop.abort(reason);
      await Promise.allSettled([...session.inflight]);
      // Let the tool error responses reach the transport before it closes.
      await sleep(20);
    }
    await session.server.close().catch(onError);
  };

  const open = async ({ key, request, response, body }: McpHttpRequest): Promise<void> => {
    const stop = new AbortController();
    const inflight = new Set<Promise<unknown>>();
    const base = createAppBackend(app, key, { stop: stop.signal });
    const backend: OrgToolBackend = {
      ...base,
      runTurn(input, watcher) {
        const turn = base.runTurn(input, watcher);
        inflight.add(turn);
        const forget = () => inflight.delete(turn);
        turn.then(forget, forget);
        return turn;
      },
    };
    const server = createOrgMcpServer(backend, { version: options.version, onError });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: Session = { keyId: key.id, server, transport, unregister: () => undefined, stop, inflight };
        sessions.set(id, session);
        session.unregister = app.connections.register(key.id, (reason) => void closeSession(id, reason));
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && sessions.has(id)) void closeSession(id);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  };

  return {
    async handle(input) {
      const header = input.request.headers['mcp-session-id'];
      const sessionId = Array.isArray(header) ? header[0] : header;
      try {
        if (sessionId) {
          const session = sessions.get(sessionId);
          // A session opened with another key is as unknown as a closed one.
          if (!session || session.keyId !== input.key.id) return rpcError(input.response, 404, -32001, 'Session not found');
          await session.transport.handleRequest(input.request, input.response, input.body);
          return;
        }
        if (input.request.method === 'POST' && isInitializeRequest(input.body)) return await open(input);
        rpcError(input.response, 400, -32000, 'Bad Request: no valid Mcp-Session-Id header; send initialize first');
      } catch (error) {
        onError(error);
        rpcError(input.response, 500, -32603, 'Internal error');
      }
    },
    sessionCount(keyId) {
      if (keyId === undefined) return sessions.size;
      return [...sessions.values()].filter((session) => session.keyId === keyId).length;
    },
    async close() {
      // Shutdown: `do` calls get the grace period for their turns (which the chat engine
      // bounds too), then whatever still waits is answered with a tool error.
      const waiting = [...sessions.values()].flatMap((session) => [...session.inflight]);
      if (waiting.length > 0) await Promise.race([Promise.allSettled(waiting), sleep(app.config.shutdownGraceMs)]);
      await Promise.all([...sessions.keys()].map((id) => closeSession(id, 'the server is shutting down')));
    },
  };
}
