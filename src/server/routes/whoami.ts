/** GET /api/org/whoami: who the bearer is; for a node key, its structure and node (used by `org mcp`). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { App } from '../../app.js';
import { problems } from '../schemas/common.js';
import { WhoAmISchema } from '../../core/schemas/index.js';

/** The caller's identity, and whether it is the instance administrator (`admin`, API.md §10). */
export const whoamiRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'access'> }> = async (server, { app }) => {
  server.get(
    '/api/org/whoami',
    {
      config: { access: { kind: 'authenticated' } },
      schema: {
        operationId: 'whoAmI',
        summary: 'Who the bearer is: the administrator, a user, or an MCP node key with its structure and node; admin says whether it may change the instance skills',
        tags: ['system'],
        response: { 200: WhoAmISchema, ...problems(401, 429) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const admin = app.access.isInstanceAdmin(principal);
      if (principal.kind === 'user') return { kind: 'user' as const, admin, user: principal.user };
      if (principal.kind === 'mcp') {
        const { id, structure_id, role_id, label } = principal.key;
        return { kind: 'mcp' as const, admin, key: { id, structure_id, role_id, label } };
      }
      return { kind: 'admin' as const, admin };
    },
  );
};
