/**
 * What every call of an `OrgClient` goes through: the server's URL, the transport
 * (fetch, token, timeout) and the default options of its chat streams, set once by the
 * constructor. The calls themselves are in `calls/`, one file per part of the API.
 */
import { call, type CallOptions, type FetchLike, type RequestOptions, type Transport } from './http.js';
import { isChatEvent } from '../core/schemas/chat.js';
import type { ChatStreamOptions } from './stream.js';

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

/** A client's transport and stream options: kept out of its public members. */
interface ClientState {
  transport: Transport;
  stream: ChatStreamOptions;
}

const states = new WeakMap<ClientBase, ClientState>();

/** The part of a client that holds its connection settings; `OrgClient` adds the calls. */
export class ClientBase {
  readonly url: string;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    states.set(this, {
      transport: {
        url: this.url,
        // Looked up at each call, so a test or a polyfill that replaces the global is seen.
        fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
        timeoutMs: options.timeoutMs ?? 30_000,
        ...(options.token ? { token: options.token } : {}),
        ...(options.onUnauthorized ? { onUnauthorized: options.onUnauthorized } : {}),
      },
      // Node clients afford the full schema check of every event the server sends.
      stream: { isEvent: isChatEvent, ...options.stream },
    });
  }

  /** True when the client has a token. */
  get hasToken(): boolean {
    return transportOf(this).token !== undefined;
  }
}

/** The transport of a client. */
export function transportOf(client: ClientBase): Transport {
  return states.get(client)!.transport;
}

/** The chat stream options of a client merged with those of one stream. */
export function streamOptionsOf(client: ClientBase, options: ChatStreamOptions): ChatStreamOptions {
  return { ...states.get(client)!.stream, ...options };
}

/** A JSON call of the API with the client's transport, aborted by the request's signal. */
export function callOn<T>(client: ClientBase, path: string, options: CallOptions = {}, request: RequestOptions = {}): Promise<T> {
  return call<T>(transportOf(client), path, request.signal ? { ...options, signal: request.signal } : options);
}

/** `encodeURIComponent`, for ids in paths. */
export const enc = encodeURIComponent;
/** The path of a structure. */
export const structurePath = (id: string) => `/api/org/structures/${enc(id)}`;
/** The path of a node of a structure. */
export const nodePath = (id: string, roleId: string) => `${structurePath(id)}/agents/${enc(roleId)}`;
