/**
 * Sessions of 2025-revision clients at `/mcp`: one MCP server, transport and event
 * store per `initialize`, bound to the key that opened it. Clients rarely end their
 * sessions (the Inspector and the SDK's `close()` never send DELETE), so a session idle
 * for `idleMs` is closed, and a key holds at most `maxPerKey` sessions: opening one more
 * closes that key's least recently used idle session. A session with a `do` in flight
 * is never idle. Every session is registered under its key, so revoking the key closes
 * it at once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { OrgMcpServer } from './tasks.js';
import { SessionEventStore } from './event-store.js';

/** One open session. */
interface Session {
  id: string;
  keyId: string;
  server: OrgMcpServer;
  transport: NodeStreamableHTTPServerTransport;
  /** Aborted when the session is closed by the service (revocation, shutdown). */
  stop: AbortController;
  lastSeen: number;
  /** `do` calls and task results being waited for. */
  inflight: number;
  /** Resolved when `inflight` drops to zero. */
  drained: (() => void)[];
  unregister: () => void;
}

/** What a new session is built from. */
export interface SessionParts {
  server: OrgMcpServer;
  /** Called when the session's turns start and end, so a busy session is never idle. */
  stop: AbortController;
}

/** Options of {@link SessionRegistry}. */
export interface SessionRegistryOptions {
  /** Idle time after which a session is closed, in ms. */
  idleMs: number;
  /** Most sessions one key may hold. */
  maxPerKey: number;
  /** SSE keepalive comment interval of session streams, in ms. */
  keepAliveMs: number;
  /** The clock (ms), replaceable in tests. */
  now: () => number;
  /** Registers a session under its key for revocation; returns the unregister function. */
  register: (keyId: string, close: (reason: string) => void) => () => void;
  onError: (error: unknown) => void;
}

/** Answers a JSON-RPC error over plain HTTP. */
export function rpcError(response: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (response.headersSent) return void response.end();
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The open 2025-revision sessions. */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly options: SessionRegistryOptions) {}

  /** Number of open sessions (all keys, or one key). */
  count(keyId?: string): number {
    if (keyId === undefined) return this.sessions.size;
    let n = 0;
    for (const session of this.sessions.values()) if (session.keyId === keyId) n++;
    return n;
  }

  /** Marks a session busy while `work` runs (a `do` or a task result being waited for). */
  busy(id: string | undefined): () => void {
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (!session) return () => undefined;
    session.inflight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      session.inflight--;
      session.lastSeen = this.options.now();
      if (session.inflight === 0) for (const resolve of session.drained.splice(0)) resolve();
    };
  }

  /** Serves a request of an existing session; 404 when unknown or opened with another key. */
  async serve(id: string, keyId: string, request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const session = this.sessions.get(id);
    if (!session || session.keyId !== keyId) return rpcError(response, 404, -32001, 'Session not found: it ended or expired; initialize a new one');
    session.lastSeen = this.options.now();
    if (request.method === 'DELETE') {
      await session.transport.handleRequest(request, response, body);
      await this.close(id);
      return;
    }
    await session.transport.handleRequest(request, response, body);
    session.lastSeen = this.options.now();
  }

  /**
   * Opens a session for an `initialize`: makes room under the key's cap first (429
   * when every session of the key is busy), then lets the transport answer.
   */
  async open(keyId: string, build: (sessionId: () => string | undefined) => SessionParts, request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const mine = [...this.sessions.values()].filter((session) => session.keyId === keyId);
    if (mine.length >= this.options.maxPerKey) {
      const idle = mine.filter((session) => session.inflight === 0).sort((a, b) => a.lastSeen - b.lastSeen);
      const excess = mine.length - this.options.maxPerKey + 1;
      if (idle.length < excess) {
        return rpcError(response, 429, -32000, `this key already has ${mine.length} MCP sessions with calls in flight; end one first`, { 'retry-after': '5' });
      }
      await Promise.all(idle.slice(0, excess).map((session) => this.close(session.id)));
    }
    // The session id exists once the transport has answered the initialize.
    const parts = build(() => transport.sessionId);
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new SessionEventStore(),
      keepAliveMs: this.options.keepAliveMs,
      onsessioninitialized: (id) => {
        const session: Session = {
          id,
          keyId,
          server: parts.server,
          transport,
          stop: parts.stop,
          lastSeen: this.options.now(),
          inflight: 0,
          drained: [],
          unregister: () => undefined,
        };
        this.sessions.set(id, session);
        session.unregister = this.options.register(keyId, (reason) => void this.close(id, reason));
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && this.sessions.has(id)) void this.close(id);
    };
    await parts.server.connect(transport);
    await transport.handleRequest(request, response, body);
    // An initialize that failed opened no session: release what was built for it.
    if (!transport.sessionId || !this.sessions.has(transport.sessionId)) await parts.server.close().catch(this.options.onError);
  }

  /** Closes sessions idle for longer than the idle time; returns how many. */
  async sweep(): Promise<number> {
    const limit = this.options.now() - this.options.idleMs;
    const idle = [...this.sessions.values()].filter((session) => session.inflight === 0 && session.lastSeen <= limit);
    await Promise.all(idle.map((session) => this.close(session.id)));
    return idle.length;
  }

  /**
   * Ends a session: from this instant its id is unknown (404). With a `reason`, calls
   * still waiting get a tool error carrying it before the transport closes.
   */
  async close(id: string, reason?: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    session.unregister();
    if (reason) {
      session.stop.abort(reason);
      // Let the calls still waiting answer with the reason before the transport closes.
      if (session.inflight > 0) await new Promise<void>((resolve) => session.drained.push(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await session.server.close().catch(this.options.onError);
  }

  /** Closes every session with `reason`. */
  async closeAll(reason: string): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id, reason)));
  }

  /** Number of sessions with calls in flight (shutdown waits for them). */
  busyCount(): number {
    let n = 0;
    for (const session of this.sessions.values()) if (session.inflight > 0) n++;
    return n;
  }
}
