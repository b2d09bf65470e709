/**
 * The `/mcp` endpoint itself (loaded on its first request, see `http.ts`): one endpoint
 * serves both revisions. A 2026-07-28 request is answered statelessly by a server built
 * for that request (nothing is kept between requests); 2025-revision clients get
 * sessions with resumable, numbered events that expire when idle and are capped per key
 * ({@link SessionRegistry}). At shutdown, `do` calls still waiting get the grace period
 * for their turns, then answer that the turn goes on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler, toWebRequest, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import type { App } from '../app.js';
import type { McpKeyRecord } from '../core/auth/index.js';
import { errorFields } from '../core/util/log.js';
import { createAppBackend } from './app-backend.js';
import type { OrgToolBackend, StartedTurn } from './backend.js';
import type { McpHttpHandler, McpHttpOptions } from './http.js';
import { createOrgMcpServer } from './server.js';
import { SessionRegistry, rpcError } from './sessions.js';

interface KeyAuth extends AuthInfo {
  extra: { key: McpKeyRecord; baseUrl?: string };
}

/** Builds the `/mcp` endpoint over `app`. */
export function createEndpoint(app: App, options: McpHttpOptions): McpHttpHandler {
  const onError = (error: unknown): void => options.log('error', 'mcp: unexpected failure', errorFields(error));
  const idleMs = options.sessionIdleMs ?? 10 * 60_000;
  const sessions = new SessionRegistry({
    idleMs,
    maxPerKey: options.maxSessionsPerKey ?? 16,
    keepAliveMs: app.config.keepaliveMs,
    now: options.now ?? Date.now,
    register: (keyId, close) => app.connections.register(keyId, close),
    onError,
  });
  const sweeper = setInterval(() => void sessions.sweep().catch(onError), Math.max(1000, Math.min(60_000, Math.floor(idleMs / 4))));
  sweeper.unref();
  const base = { version: options.version, log: options.log, ...(options.progressIntervalMs ? { progressIntervalMs: options.progressIntervalMs } : {}) };
  /** Aborted at shutdown: every waiting `do` of a 2026 request answers at once. */
  const shutdown = new AbortController();
  /** Turns `do` calls are waiting for (shutdown gives them the grace period). */
  const waiting = new Set<Promise<unknown>>();
  const track = (turn: StartedTurn): StartedTurn => {
    const done = turn.done.catch(() => undefined);
    waiting.add(done);
    void done.then(() => waiting.delete(done));
    return turn;
  };

  // 2026-07-28: one server per request, for the key in its auth info. Revoking the key
  // ends the request's waiting `do` (the turn goes on).
  const modern = createMcpHandler(
    ({ authInfo }) => {
      const { key, baseUrl } = (authInfo as KeyAuth).extra;
      const stop = new AbortController();
      const unregister = app.connections.register(key.id, (reason) => stop.abort(reason));
      const onShutdown = () => stop.abort('the server is shutting down');
      shutdown.signal.addEventListener('abort', onShutdown, { once: true });
      const plain = createAppBackend(app, key, baseUrl);
      const backend: OrgToolBackend = { ...plain, startTurn: async (input) => track(await plain.startTurn(input)) };
      const server = createOrgMcpServer(backend, { ...base, era: 'modern', stop: stop.signal });
      server.server.onclose = () => {
        unregister();
        shutdown.signal.removeEventListener('abort', onShutdown);
      };
      return server;
    },
    { legacy: 'reject', onerror: onError, keepAliveMs: app.config.keepaliveMs },
  );
  const modernNode: NodeMcpRequestHandler = toNodeHandler(modern, { onerror: onError });

  const openSession = async (key: McpKeyRecord, request: IncomingMessage, response: ServerResponse, body: unknown, baseUrl: string | undefined) =>
    sessions.open(
      key.id,
      (sessionId) => {
        const stop = new AbortController();
        // A session's URLs start where the client that opened it reached the service.
        const plain = createAppBackend(app, key, baseUrl);
        // A session with a turn being waited for is busy: never idle, never evicted.
        const backend: OrgToolBackend = {
          ...plain,
          async startTurn(input) {
            const turn = track(await plain.startTurn(input));
            const release = sessions.busy(sessionId());
            void turn.done.then(release, release);
            return turn;
          },
          async awaitTurn(runId, signal) {
            const release = sessions.busy(sessionId());
            try {
              return await plain.awaitTurn(runId, signal);
            } finally {
              release();
            }
          },
        };
        return { server: createOrgMcpServer(backend, { ...base, era: 'legacy', stop: stop.signal }), stop };
      },
      request,
      response,
      body,
    );

  return {
    async handle({ key, request, response, body, baseUrl }) {
      try {
        const header = request.headers['mcp-session-id'];
        const sessionId = Array.isArray(header) ? header[0] : header;
        if (sessionId) return await sessions.serve(sessionId, key.id, request, response, body);
        if (request.method === 'POST' && isInitializeRequest(body)) return await openSession(key, request, response, body, baseUrl);
        const web = await toWebRequest(request, body);
        if (await isLegacyRequest(web)) {
          return rpcError(response, 400, -32000, 'Bad Request: no valid Mcp-Session-Id header; send initialize first (or speak protocol revision 2026-07-28)');
        }
        (request as IncomingMessage & { auth?: KeyAuth }).auth = { token: '', clientId: key.id, scopes: [], extra: { key, ...(baseUrl ? { baseUrl } : {}) } };
        await modernNode(request, response, body);
      } catch (error) {
        onError(error);
        rpcError(response, 500, -32603, 'Internal error');
      }
    },
    sessionCount: (keyId) => sessions.count(keyId),
    sweep: () => sessions.sweep(),
    async close() {
      clearInterval(sweeper);
      if (waiting.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, app.config.shutdownGraceMs)));
        await Promise.race([Promise.allSettled([...waiting]), grace]);
        clearTimeout(timer);
      }
      shutdown.abort('the server is shutting down');
      await sessions.closeAll('the server is shutting down');
      await modern.close().catch(onError);
    },
  };
}
