/**
 * The HTTP server of `org serve`: Fastify with a schema on every route, one error
 * handler, bearer auth with the role matrix, a per-token rate limit and an OpenAPI 3.1
 * document generated from the route schemas.
 */
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { App } from '../app.js';
import { registerAccess } from './access.js';
import { registerAudit } from './audit.js';
import { registerLogIds } from './log-ids.js';
import { registerCompressedBodies } from './http/compressed-bodies.js';
import { registerCompression } from './http/compression.js';
import { registerConditionalGet } from './http/conditional.js';
import { registerCors } from './http/cors.js';
import { capConnections, timeoutOptions } from './http/connections.js';
import { registerApiHeaders } from './http/api-headers.js';
import { registerRateLimit } from './http/rate-limit.js';
import type { MetricsApp } from './metrics/index.js';
import { startTracing } from './telemetry/index.js';
import { clientErrorHandler, frameworkErrors, handleExpectations, registerClosing, registerErrorHandling } from './errors.js';
import { openapiOptions } from './openapi.js';
import { publicBaseUrls } from './public-url.js';
import { registerRequestIds, requestIdOf } from './request-id.js';
import { auditRoutes } from './routes/audit.js';
import { nodeRoutes } from './routes/nodes.js';
import { artifactRoutes } from './routes/artifacts.js';
import { chatRoutes } from './routes/chat.js';
import { inboundRoutes } from './routes/inbound.js';
import { keyRoutes } from './routes/keys.js';
import { mcpRoutes, type McpEndpoint } from './routes/mcp.js';
import { memberRoutes } from './routes/members.js';
import { skillRoutes } from './routes/skills.js';
import { skillTransferRoutes } from './routes/skill-transfer.js';
import { skillForkRoutes } from './routes/skill-fork.js';
import { skillVersionRoutes } from './routes/skill-versions.js';
import { structureRoutes } from './routes/structures.js';
import { systemRoutes } from './routes/system.js';
import { webRoutes } from './routes/web.js';
import { webhookRoutes } from './routes/webhooks.js';
import { userRoutes } from './routes/users.js';
import { whoamiRoutes } from './routes/whoami.js';
import { createSerializerCompiler } from './serialization.js';
import './types.js';
import { MAX_PATH_SEGMENT } from './problem.js';
import { createValidatorCompiler } from './validation.js';

export interface ServerOptions {
  /** Version reported by health and the OpenAPI document. */
  version: string;
  /** Fastify logger option (default: off). Logs never contain tokens. */
  logger?: FastifyServerOptions['logger'];
  /** A logger to use as is (the one the app reports to, in `org serve`); wins over `logger`. */
  loggerInstance?: FastifyBaseLogger;
  /**
   * The MCP Streamable HTTP endpoint to mount at `/mcp` (from src/mcp, passed in by the
   * composition root so the server never imports the MCP layer); absent: no `/mcp`.
   */
  mcp?: McpEndpoint;
  /** Origins besides the server's own that browsers may call `/mcp` from. */
  mcpAllowedOrigins?: readonly string[];
}

/** Builds (but does not start) the server for an app. */
export async function buildServer(app: App, options: ServerOptions): Promise<FastifyInstance> {
  const server = Fastify({
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? false }),
    bodyLimit: app.config.bodyLimit,
    // How long a client may take to send a request (never how long an answer may stream).
    ...timeoutOptions(app.config.connections),
    // Only the configured proxies' X-Forwarded-* headers are believed (request.ip, protocol, host).
    ...(app.config.trustProxy.length > 0 ? { trustProxy: app.config.trustProxy } : {}),
    // Closing is answered by registerClosing, as a problem.
    return503OnClosing: false,
    // Errors raised before a route runs take the same problem+json path as the rest.
    frameworkErrors,
    clientErrorHandler,
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    // A caller's usable X-Request-Id is kept, otherwise a UUID; logs label it request_id.
    genReqId: requestIdOf,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  handleExpectations(server.server, app.config.bodyLimit);
  server.decorate('connectionStats', capConnections(server.server, app.config.connections, app.config.trustProxy));
  // First, so that every route and hook is instrumented; nothing is loaded when off.
  const tracing = app.config.otlpTracesUrl ? await startTracing(server, { chat: app.chat, observeSearches: app.observeSearches }, { version: options.version, url: app.config.otlpTracesUrl }) : undefined;
  if (tracing) server.addHook('onClose', async () => tracing.shutdown());

  server.setValidatorCompiler(createValidatorCompiler());
  server.setSerializerCompiler(createSerializerCompiler());
  // JSON only: a text body must get 415, not a validation error.
  server.removeContentTypeParser(['text/plain']);
  // An empty body sent with `content-type: application/json` (common on DELETE) is no body.
  const parseJson = server.getDefaultJsonParser('error', 'error');
  server.removeContentTypeParser('application/json');
  server.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    void parseJson(request, body as string, done);
  });
  registerApiHeaders(server);
  registerRequestIds(server);
  registerErrorHandling(server);
  registerClosing(server);

  await server.register(swagger, openapiOptions(options.version));
  // Before every route: CORS answers preflights and marks every answer (errors included);
  // ETags are computed on the plain body, then the body is compressed.
  await registerCors(server, app.config.corsOrigins);
  registerConditionalGet(server);
  registerCompressedBodies(server);
  await registerCompression(server);
  server.decorate('sseStreams', { open: 0 });
  if (app.config.metrics) await mountMetrics(server, { chat: app.chat, skillCount: app.skillCount, observeSearches: app.observeSearches }, app.config.metricsPort !== undefined, options.mcp);

  const onAuthFailure = registerRateLimit(server, { max: app.config.rateLimit, authFailures: app.config.authFailureLimit, ...(app.rateCounter ? { counter: app.rateCounter } : {}) });

  registerAccess(server, app, onAuthFailure);
  registerLogIds(server, { nodes: app.nodes });
  registerAudit(server, { audit: app.audit });
  // Each route plugin receives the services it uses, and nothing else of the app.
  await server.register(systemRoutes, { app: { users: app.users, skills: app.skills, skillCount: () => app.skillCount(), readiness: () => app.readiness() }, version: options.version });
  await server.register(structureRoutes, { app: { structures: app.structures, nodes: app.nodes, workspaceLog: app.workspaceLog } });
  await server.register(nodeRoutes, { app: { nodes: app.nodes, egress: app.egress } });
  await server.register(keyRoutes, { app: { nodes: app.nodes, keys: app.keys } });
  await server.register(memberRoutes, { app: { invites: app.invites, members: app.members, users: app.users } });
  await server.register(skillRoutes, { app: { skills: app.skills, access: app.access, paths: app.paths, egress: app.egress } });
  await server.register(skillTransferRoutes, { app: { skills: app.skills, egress: app.egress } });
  await server.register(skillForkRoutes, { app: { skills: app.skills } });
  await server.register(skillVersionRoutes, { app: { skills: app.skills, access: app.access, paths: app.paths, egress: app.egress } });
  await server.register(chatRoutes, { app: { chat: app.chat, config: app.config, connections: app.connections, streams: app.streams, access: app.access, structures: app.structures } });
  await server.register(artifactRoutes, { app: { nodes: app.nodes, chat: app.chat } });
  await server.register(whoamiRoutes, { app: { access: app.access } });
  await server.register(userRoutes, { app: { users: app.users } });
  await server.register(inboundRoutes, { app: { inbound: app.inbound, config: app.config, clock: app.clock } });
  await server.register(webhookRoutes, { app: { webhooks: app.webhooks, egress: app.egress } });
  await server.register(auditRoutes, { app: { audit: app.audit } });
  if (options.mcp) {
    const baseUrlOf = publicBaseUrls({ configured: app.config.publicUrl, trustProxy: app.config.trustProxy, listening: () => app.publicUrl() });
    await server.register(mcpRoutes, { endpoint: options.mcp, publicUrl: () => app.publicUrl(), baseUrlOf, ...(options.mcpAllowedOrigins ? { allowedOrigins: options.mcpAllowedOrigins } : {}) });
  }
  await server.register(webRoutes);
  await server.ready();
  return server;
}

/**
 * Turns metrics on: observed from here on, served at `GET /metrics` on this port unless
 * they have a port of their own (`--metrics-port`, started by `org serve`). Outside
 * `/api/org`, hidden from the OpenAPI document, no bearer: scrapers rarely carry one.
 * The metrics module (and prom-client with it) is loaded only here: a server without
 * metrics never compiles it.
 */
async function mountMetrics(server: FastifyInstance, app: MetricsApp, ownPort: boolean, mcp: McpEndpoint | undefined): Promise<void> {
  const { createMetrics } = await import('./metrics/index.js');
  const metrics = createMetrics(server, app, {
    openStreams: () => server.sseStreams.open,
    ...(mcp?.sessionCount ? { mcpSessions: () => mcp.sessionCount!() } : {}),
  });
  server.decorate('orgMetrics', metrics);
  server.addHook('onClose', async () => metrics.close());
  if (ownPort) return;
  server.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.contentType).header('cache-control', 'no-store').send(await metrics.render()),
  );
}
