/**
 * MCP over Streamable HTTP at `/mcp` for `org serve`, for a node key the HTTP server has
 * already authenticated: revisions 2026-07-28 (stateless) and 2025-11-25 and earlier
 * (sessions). The MCP SDK is loaded on the first `/mcp` request, so a server that is
 * never asked for MCP starts without it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import type { McpKeyRecord } from '../core/auth/index.js';
import type { Log } from '../core/util/log.js';

/** One authenticated request to `/mcp`. */
export interface McpHttpRequest {
  /** The node key the request was authenticated with. */
  key: McpKeyRecord;
  request: IncomingMessage;
  response: ServerResponse;
  /** The parsed JSON body of a POST. */
  body: unknown;
  /** The base URL the client reached the service at (URLs handed back to it start with it); default the app's public URL. */
  baseUrl?: string;
}

/** The `/mcp` endpoint. */
export interface McpHttpHandler {
  /** Serves one request (POST, GET or DELETE); writes the whole response itself. */
  handle(input: McpHttpRequest): Promise<void>;
  /** Number of open 2025-revision sessions (all keys, or one key). */
  sessionCount(keyId?: string): number;
  /** Closes the sessions idle past the idle time now; returns how many (also runs on a timer). */
  sweep(): Promise<number>;
  /** Closes every session (shutdown), after the grace period for `do` calls still waiting. */
  close(): Promise<void>;
}

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpOptions {
  /** Version reported to clients. */
  version: string;
  /** Where unexpected failures are reported (their details never reach the client). */
  log: Log;
  /** A 2025-revision session idle this long is closed (ms, default 10 minutes). */
  sessionIdleMs?: number;
  /** Most 2025-revision sessions per key (default 16). */
  maxSessionsPerKey?: number;
  /** Longest quiet stretch of a blocking `do` without a progress notification (ms, default 15 s). */
  progressIntervalMs?: number;
  /** The clock of session expiry (ms; tests). */
  now?: () => number;
}

/** Builds the `/mcp` handler over `app`; the endpoint itself is built on the first request. */
export function createMcpHttpHandler(app: App, options: McpHttpOptions): McpHttpHandler {
  let loaded: McpHttpHandler | undefined;
  let loading: Promise<McpHttpHandler> | undefined;
  let closed = false;
  const load = () =>
    (loading ??= import('./http-endpoint.js').then(({ createEndpoint }) => {
      loaded = createEndpoint(app, options);
      return loaded;
    }));
  return {
    async handle(input) {
      if (closed) {
        input.response.writeHead(503, { 'content-type': 'application/json' });
        input.response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'the server is shutting down' }, id: null }));
        return;
      }
      await (await load()).handle(input);
    },
    sessionCount: (keyId) => loaded?.sessionCount(keyId) ?? 0,
    sweep: async () => (loaded ? loaded.sweep() : 0),
    async close() {
      closed = true;
      if (loading) await (await loading).close();
    },
  };
}
