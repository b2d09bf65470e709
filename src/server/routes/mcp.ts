/**
 * The `/mcp` endpoint (MCP Streamable HTTP, API.md §7). The server owns the HTTP side —
 * bearer authentication (401 problem without a live key), the node-key check (403 for
 * user tokens), rate limiting — and hands the raw request to the MCP endpoint it was
 * given by the composition root (`org serve`), so the server never imports the MCP layer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { McpKeyRecord } from '../../core/auth/index.js';
import { forbidden } from '../../core/errors.js';
import { problems } from '../schemas/common.js';

/** What the server needs of an MCP endpoint (implemented by src/mcp's `createMcpHttpHandler`). */
export interface McpEndpoint {
  /** Serves one authenticated request; writes the whole response. */
  handle(input: { key: McpKeyRecord; request: IncomingMessage; response: ServerResponse; body: unknown }): Promise<void>;
  /** Closes every session (called before the server closes). */
  close(): Promise<void>;
}

/** Mounts an MCP endpoint at `/mcp` (POST, GET, DELETE). */
export const mcpRoutes: FastifyPluginAsyncTypebox<{ endpoint: McpEndpoint }> = async (server, { endpoint }) => {
  // Open sessions hold SSE streams: end them first, or closing the server would wait on them.
  server.addHook('preClose', async () => endpoint.close());

  const doc = {
    description: 'JSON-RPC response (application/json) or text/event-stream, per the MCP Streamable HTTP transport',
    content: { 'application/json': { schema: Type.Unknown() }, 'text/event-stream': { schema: Type.String() } },
  };
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    server.route({
      method,
      url: '/mcp',
      config: { access: { kind: 'authenticated' } },
      schema: {
        operationId: `mcp${method.charAt(0)}${method.slice(1).toLowerCase()}`,
        summary: `MCP Streamable HTTP (${method}); bearer: an MCP node key`,
        tags: ['mcp'],
        response: { 200: doc, ...problems(400, 401, 403, 404, 415, 429) },
      },
      handler: async (request, reply) => {
        const principal = request.principal;
        if (principal?.kind !== 'mcp') throw forbidden('/mcp needs an MCP node key (org_mcp_…) as bearer, not a user token');
        reply.hijack();
        await endpoint.handle({ key: principal.key, request: request.raw, response: reply.raw, body: request.body });
      },
    });
  }
};
