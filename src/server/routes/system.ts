/** Instance routes: health, the OpenAPI document, user creation (API.md §1, §8). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { OrgError } from '../../core/errors.js';
import { CreatedUserSchema, Email, HealthSchema, ReadinessSchema } from '../../core/schemas/index.js';
import { problems } from '../schemas/common.js';
import { fromAnswer } from '../audit.js';

export interface SystemRoutesOptions {
  app: Pick<App, 'users' | 'skills' | 'skillCount' | 'readiness'>;
  version: string;
}

/** Health, OpenAPI and users. */
export const systemRoutes: FastifyPluginAsyncTypebox<SystemRoutesOptions> = async (server, { app, version }) => {
  server.get(
    '/api/org/health',
    {
      config: { access: { kind: 'public', local: true } },
      schema: {
        operationId: 'getHealth',
        summary: 'Liveness: the process answers',
        tags: ['instance'],
        response: { 200: HealthSchema },
      },
    },
    async () => ({
      status: 'ok' as const,
      version,
      skills: app.skillCount(),
      skills_index: app.skills.isReady() ? ('ready' as const) : ('loading' as const),
      uncommitted_skill_files: app.skills.uncommittedFiles(),
    }),
  );

  server.get(
    '/api/org/health/ready',
    {
      config: { access: { kind: 'public', local: true } },
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness: the skill index is loaded, the store answers and the instance is not draining (503 otherwise)',
        tags: ['instance'],
        response: { 200: ReadinessSchema, ...problems(503) },
      },
    },
    async () => {
      const { ready, checks } = await app.readiness();
      if (!ready) {
        const failing = [!checks.skills_index && 'the skill index is still loading', !checks.store && 'the store is not reachable', checks.draining && 'the instance is shutting down'].filter(Boolean);
        throw new OrgError('unavailable', `not ready: ${failing.join('; ')}`, { extra: { checks } });
      }
      return { status: 'ready' as const, checks };
    },
  );

  server.get(
    '/api/org/openapi.json',
    {
      config: { access: { kind: 'public', local: true } },
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'The OpenAPI 3.1 document of every route',
        tags: ['instance'],
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'an OpenAPI 3.1 document' }) },
      },
    },
    async () => server.swagger(),
  );

  server.post(
    '/api/org/users',
    {
      config: { access: { kind: 'admin' }, audit: { action: 'user.create', target: fromAnswer('user', 'user', 'id') } },
      schema: {
        operationId: 'createUser',
        summary: 'Create a user (administrator only)',
        tags: ['instance'],
        body: Type.Object({ email: Email }),
        response: { 201: CreatedUserSchema, ...problems(400, 401, 403, 409, 415) },
      },
    },
    async (request, reply) => {
      const created = await app.users.create(request.body.email);
      return reply.code(201).send(created);
    },
  );
};
