/**
 * Replacing a user's token: a person rotates their own (a token that may have leaked),
 * the administrator resets anyone's (a lost or leaked token). The new token is in the
 * answer, shown this once; the old one is refused from then on, on every instance
 * sharing the store.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { forbidden, notFound } from '../../core/errors.js';
import { CreatedUserSchema, Uuid } from '../../core/schemas/index.js';
import { fromAnswer } from '../audit.js';
import { problems } from '../schemas/common.js';

export interface UserRoutesOptions {
  app: Pick<App, 'users'>;
}

/** `POST /api/org/users/me/token` and `POST /api/org/users/{user_id}/token`. */
export const userRoutes: FastifyPluginAsyncTypebox<UserRoutesOptions> = async (server, { app }) => {
  const rotate = async (userId: string) => {
    const user = await app.users.byId(userId);
    if (!user) throw notFound(`user ${userId} not found`);
    return { user, token: await app.users.replaceToken(userId) };
  };
  const audit = { action: 'user.token_rotate' as const, target: fromAnswer('user', 'user', 'id') };

  server.post(
    '/api/org/users/me/token',
    {
      config: { access: { kind: 'person' }, audit },
      schema: {
        operationId: 'rotateMyToken',
        summary: 'Replace your token with a new one (shown once); the one you called with stops working',
        tags: ['instance'],
        response: { 200: CreatedUserSchema, ...problems(401, 403, 429) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      if (principal.kind !== 'user') throw forbidden('the administrator token is ORG_ADMIN_TOKEN: change it in the server’s environment and restart');
      return rotate(principal.user.id);
    },
  );

  server.post(
    '/api/org/users/:user_id/token',
    {
      config: { access: { kind: 'admin' }, audit },
      schema: {
        operationId: 'resetUserToken',
        summary: 'Give a user a new token (shown once) and stop the old one (administrator only)',
        tags: ['instance'],
        params: Type.Object({ user_id: Uuid }),
        response: { 200: CreatedUserSchema, ...problems(400, 401, 403, 404, 429) },
      },
    },
    async (request) => rotate(request.params.user_id),
  );
};
