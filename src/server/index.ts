/**
 * The HTTP server of `org serve`: Fastify with a schema on every route, one error
 * handler, bearer auth with the role matrix, a per-token rate limit and an OpenAPI 3.1
 * document generated from the route schemas.
 */
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { App } from '../app.js';
import { hashToken } from '../core/auth/index.js';
import { OrgError } from '../core/errors.js';
import { bearerOf, registerAccess } from './access.js';
import { registerErrorHandling } from './errors.js';
import { agentRoutes } from './routes/agents.js';
import { keyRoutes } from './routes/keys.js';
import { memberRoutes } from './routes/members.js';
import { structureRoutes } from './routes/structures.js';
import { systemRoutes } from './routes/system.js';
import './types.js';
import { createValidatorCompiler } from './validation.js';

/** Options of the HTTP server. */
export interface ServerOptions {
  /** Version reported by health and the OpenAPI document. */
  version: string;
  /** Fastify logger option (default: off). Logs never contain tokens. */
  logger?: FastifyServerOptions['logger'];
}

/** Builds (but does not start) the server for an app. */
export async function buildServer(app: App, options: ServerOptions): Promise<FastifyInstance> {
  const server = Fastify({
    logger: options.logger ?? false,
    bodyLimit: app.config.bodyLimit,
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  server.setValidatorCompiler(createValidatorCompiler());
  // JSON only: a text body must get 415, not a validation error.
  server.removeContentTypeParser(['text/plain']);
  registerErrorHandling(server);

  await server.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'org', version: options.version, description: 'Agent workspaces: structures, skills, chat. See API.md.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });

  await server.register(rateLimit, {
    global: true,
    max: app.config.rateLimit,
    timeWindow: 60_000,
    keyGenerator: (request) => {
      const token = bearerOf(request);
      return token ? `t:${hashToken(token)}` : `ip:${request.ip}`;
    },
    errorResponseBuilder: (_request, context) =>
      new OrgError('rate_limited', `rate limit of ${context.max} requests a minute exceeded; retry in ${context.after}`, {
        retryAfter: Math.ceil(context.ttl / 1000),
      }),
  });

  registerAccess(server, app);
  await server.register(systemRoutes, { app, version: options.version });
  await server.register(structureRoutes, { app });
  await server.register(agentRoutes, { app });
  await server.register(keyRoutes, { app });
  await server.register(memberRoutes, { app });
  await server.ready();
  return server;
}
