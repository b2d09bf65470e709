/**
 * The `/mcp` endpoint (MCP Streamable HTTP, API.md §7, §9). The server owns the HTTP
 * side — bearer authentication, the node-key check (403 for user tokens), the `Origin`
 * check (a browser page of another origin gets 403), rate limiting, and the OAuth
 * protected-resource metadata (RFC 9728) that tells MCP clients this resource takes a
 * static bearer key (no authorization server, so no OAuth flow): its 401 names the
 * metadata and says the key is missing, unknown or revoked. It hands the raw request to
 * the MCP endpoint it was given by the composition root, so the server never imports
 * the MCP layer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { McpKeyRecord } from '../../core/auth/index.js';
import { forbidden } from '../../core/errors.js';
import { problems } from '../schemas/common.js';

/** A JSON-RPC error object, as the MCP transport answers a request it refuses. */
const JsonRpcError = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    error: Type.Object({ code: Type.Integer(), message: Type.String() }, { additionalProperties: true }),
    id: Type.Unknown({ description: 'the request id, or null' }),
  },
  { title: 'JsonRpcError', additionalProperties: true },
);

/** What the server needs of an MCP endpoint (implemented by src/mcp's `createMcpHttpHandler`). */
export interface McpEndpoint {
  /** Serves one authenticated request; writes the whole response. */
  handle(input: { key: McpKeyRecord; request: IncomingMessage; response: ServerResponse; body: unknown; baseUrl?: string }): Promise<void>;
  /** Closes every session (called before the server closes). */
  close(): Promise<void>;
  /** Number of open sessions (for metrics). */
  sessionCount?(): number;
}

/** Options of {@link mcpRoutes}. */
export interface McpRouteOptions {
  endpoint: McpEndpoint;
  /** Origins besides the server's own that browsers may call `/mcp` from (e.g. `http://localhost:6274`, the Inspector). */
  allowedOrigins?: readonly string[];
  /**
   * The service's own base URL (`ORG_PUBLIC_URL`, else the listening URL): where the
   * protected-resource metadata is said to be. Never taken from the request's `Host`,
   * which the caller chooses.
   */
  publicUrl?: () => string;
  /**
   * The base URL the caller reached the service at, for URLs handed back to it
   * (`artifact_urls`): see public-url.ts. Default: {@link publicUrl}.
   */
  baseUrlOf?: (request: IncomingMessage) => string;
}

/** The path of the protected-resource metadata of `/mcp`. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** A listening URL on an unspecified address (`0.0.0.0`, `::`) names no host a client can use. */
const UNSPECIFIED = /^https?:\/\/(0\.0\.0\.0|\[::\])(:\d+)?$/;

/**
 * The base URL the server may state about itself: the configured one, or undefined when
 * all it has is an unspecified listening address (then nothing is stated from the request).
 */
function ownBase(publicUrl: (() => string) | undefined): string | undefined {
  const base = publicUrl?.();
  return base && !UNSPECIFIED.test(base) ? base : undefined;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * True when `origin` is the server's own origin, one allowed, or — for a server reached
 * on a loopback name — another loopback origin (a local tool such as the Inspector; a
 * rebinding page has a public name).
 */
function originAllowed(request: FastifyRequest, origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes('*') || allowed.includes(origin)) return true;
  try {
    const from = new URL(origin);
    if (from.host === request.host) return true;
    return LOOPBACK.has(from.hostname) && LOOPBACK.has(request.hostname);
  } catch {
    return false;
  }
}

/** Mounts an MCP endpoint at `/mcp` (POST, GET, DELETE) and its protected-resource metadata. */
export const mcpRoutes: FastifyPluginAsyncTypebox<McpRouteOptions> = async (server, { endpoint, allowedOrigins = [], publicUrl, baseUrlOf }) => {
  // Open sessions hold SSE streams: end them first, or closing the server would wait on them.
  server.addHook('preClose', async () => endpoint.close());

  // Browsers send Origin; a page of another origin must not drive a local MCP server (DNS rebinding).
  server.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/mcp')) return;
    const origin = request.headers.origin;
    if (typeof origin === 'string' && !originAllowed(request, origin, allowedOrigins)) {
      throw forbidden(`requests from origin ${origin.slice(0, 200)} may not use /mcp`);
    }
  });

  // A 401 of /mcp points at the metadata and says why, so clients report a bad key instead of starting OAuth.
  // The metadata's address is the service's own base URL, never the request's Host header.
  server.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 && request.url.startsWith('/mcp')) {
      const reason = request.headers.authorization ? 'the MCP key is unknown or revoked' : 'an MCP node key (org_mcp_...) is required as bearer';
      const base = ownBase(publicUrl);
      const metadataAt = base === undefined ? '' : ` resource_metadata="${base}${RESOURCE_METADATA_PATH}",`;
      void reply.header('www-authenticate', `Bearer realm="org",${metadataAt} error="invalid_token", error_description="${reason}"`);
    }
    return payload;
  });

  const metadata = Type.Object({
    resource: Type.String(),
    resource_name: Type.String(),
    bearer_methods_supported: Type.Array(Type.String()),
    authorization_servers: Type.Array(Type.String()),
    resource_documentation: Type.Optional(Type.String()),
  });
  for (const [url, operationId] of [
    [RESOURCE_METADATA_PATH, 'mcpResourceMetadata'],
    ['/.well-known/oauth-protected-resource', 'resourceMetadata'],
  ] as const) {
    server.get(
      url,
      {
        config: { access: { kind: 'public' } },
        schema: {
          operationId,
          summary: 'OAuth protected-resource metadata of /mcp (RFC 9728): a bearer MCP node key, no authorization server',
          tags: ['mcp'],
          response: { 200: metadata },
        },
      },
      async (request) => ({
        // The resource the client asked about: the configured base, else the address it used.
        resource: `${ownBase(publicUrl) ?? `${request.protocol}://${request.host}`}/mcp`,
        resource_name: 'org MCP endpoint (one node of a workspace)',
        bearer_methods_supported: ['header'],
        authorization_servers: [],
        resource_documentation: 'Mint a node key with POST /api/org/structures/{structure_id}/agents/{role_id}/mcp-key and send it as Authorization: Bearer org_mcp_…',
      }),
    );
  }

  const jsonRpc = { 'application/json': { schema: JsonRpcError } };
  const sse = { 'text/event-stream': { schema: Type.String({ description: 'JSON-RPC messages, one per event' }) } };
  const transport = (description: string) => ({ description: `${description}: a JSON-RPC error from the MCP transport`, content: jsonRpc });
  // The server answers before the transport (auth, rate limit, a body that is not JSON) with problem details.
  const ours = problems(401, 403, 415, 429);
  const problemContent = problems(400)[400]!.content;
  const responses = {
    POST: {
      200: { description: 'A JSON-RPC response, as JSON or as a stream', content: { 'application/json': { schema: Type.Unknown() }, ...sse } },
      202: { description: 'A notification or response from the client was accepted (no body)', type: 'null' },
      404: transport('Unknown or ended session'),
      406: transport('Accept must allow application/json and text/event-stream'),
    },
    GET: { 200: { description: 'The session’s stream of server messages', content: sse }, 404: transport('Unknown or ended session'), 405: transport('Not offered') },
    DELETE: { 200: { description: 'The session ended (no body)', type: 'null' }, 404: transport('Unknown or ended session'), 405: transport('Not offered') },
  };
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    server.route({
      method,
      url: '/mcp',
      config: { access: { kind: 'authenticated' } },
      schema: {
        operationId: `mcp${method.charAt(0)}${method.slice(1).toLowerCase()}`,
        summary: `MCP Streamable HTTP (${method}), revisions 2025-11-25 (sessions) and 2026-07-28 (stateless); bearer: an MCP node key`,
        tags: ['mcp'],
        response: {
          ...responses[method],
          ...ours,
          400: { description: 'Invalid request: problem details (a body that is not JSON) or a JSON-RPC error from the transport', content: { ...problemContent, ...jsonRpc } },
        },
      },
      handler: async (request, reply) => {
        const principal = request.principal;
        if (principal?.kind !== 'mcp') throw forbidden('/mcp needs an MCP node key (org_mcp_…) as bearer, not a user token');
        reply.hijack();
        const baseUrl = baseUrlOf?.(request.raw) ?? publicUrl?.();
        await endpoint.handle({ key: principal.key, request: request.raw, response: reply.raw, body: request.body, ...(baseUrl ? { baseUrl } : {}) });
      },
    });
  }
};
