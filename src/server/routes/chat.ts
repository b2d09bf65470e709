/** Chat routes: stream, sync, history, resume, cancel (API.md §6). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { userConnectionKey, type ConnectionGuard } from '../../core/auth/index.js';
import { authorOf, decodeAttachments, type MessageAuthor, type Run } from '../../core/chat/index.js';
import { OrgError } from '../../core/errors.js';
import { ChatMessageSchema, type ChatMessage, HISTORY_LIMIT, HistoryMessageSchema, HistoryQuerySchema, RunRefSchema, SyncResultSchema, Uuid } from '../../core/schemas/index.js';
import { RunMatchesSchema, RunSearchQuerySchema } from '../../core/schemas/index.js';
import { findVisibleRuns } from './run-search.js';
import { NoContent, problems } from '../schemas/common.js';
import { bearerHashOf } from '../access.js';
import { addLogIds } from '../log-ids.js';
import { nodeScopeOf, runScopeOf } from '../scope.js';
import { streamRun, streamStored, type StreamOptions } from '../sse.js';

/**
 * Where a message came from and who wrote it, for the history, from the request's
 * resolved principal: MCP node keys are noted by label (or id).
 */
function originOf(request: FastifyRequest): { origin?: string; author?: MessageAuthor } {
  const principal = request.principal;
  if (!principal) return {};
  return { author: authorOf(principal), ...(principal.kind === 'mcp' ? { origin: `mcp:${principal.key.label || principal.key.id}` } : {}) };
}

/**
 * Starts the turn a chat message asks for: an ordinary turn, or with a run token (a
 * container turn's bearer, API.md §10) a delegation of the token's run, refused with 409
 * `delegation_refused` saying why (the refusal shows in the delegating run's stream too).
 */
async function startTurn(app: Pick<App, 'chat'>, request: FastifyRequest, body: ChatMessage): Promise<Run> {
  const { structureId, roleId } = nodeScopeOf(request);
  const attachments = decodeAttachments(body.attachments);
  const principal = request.principal;
  if (principal?.kind !== 'run') return app.chat.send({ structureId, roleId, message: body.message, attachments, ...originOf(request) });
  const { runId, nodeId, roleId: from } = principal.run;
  const delegation = await app.chat.delegate({ runId, structureId, nodeId, roleId: from }, { roleId, message: body.message }, attachments);
  if ('refusal' in delegation) throw new OrgError('delegation_refused', delegation.refusal.message, { extra: { refused: delegation.refusal.kind } });
  return delegation.run;
}

/**
 * Stream options of a request: the keepalive interval, revocation of an MCP key (or the
 * replacement of the user token it was opened with) ends the stream, and a drain ends it with `retry:` (at once when the run executes elsewhere).
 */
function streamOptions(app: Pick<App, 'config' | 'connections' | 'chat' | 'streams' | 'access'>, request: FastifyRequest, runId: string, after = 0): StreamOptions {
  const principal = request.principal;
  const hash = bearerHashOf(request);
  const guard = guardOf(app, request);
  return {
    after,
    keepaliveMs: app.config.keepaliveMs,
    watchDrain: (end) => app.streams.register({ local: () => app.chat.runsHere(runId), end }),
    ...(principal?.kind === 'mcp' ? { watchRevocation: (end: (reason: string) => void) => app.connections.register(principal.key.id, end, guard) } : {}),
    ...(principal?.kind === 'user' && hash ? { watchRevocation: (end: (reason: string) => void) => app.connections.register(userConnectionKey(principal.id, hash), end, guard) } : {}),
  };
}

/**
 * What keeps a stream open: its caller may still do the route's action on the node it
 * follows (the role matrix read again whenever the structure changes). A member removed
 * or demoted below operator, a node deleted, a structure archived: the stream ends.
 */
function guardOf(app: Pick<App, 'access'>, request: FastifyRequest): ConnectionGuard | undefined {
  const { principal, scope, accessRule: rule } = request;
  if (!principal || !scope || !rule || (rule.kind !== 'structure' && rule.kind !== 'run')) return undefined;
  const { structureId, roleId } = scope as { structureId: string; roleId?: string };
  return {
    structureId,
    allowed: () => {
      app.access.authorize(principal, rule.action, structureId, roleId);
      return true;
    },
  };
}

/** Who acts, as the chat shows it: a person's e-mail, a node key's label, or the administrator. */
function actorOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind === 'user') return principal.user.email;
  if (principal?.kind === 'mcp') return `key ${principal.key.label || principal.key.id}`;
  if (principal?.kind === 'run') return `delegation:${principal.run.roleId}`;
  return 'the administrator';
}

/** Routes of chat: send a message (streamed or sync), follow or cancel a run, read the history. */
export const chatRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'chat' | 'config' | 'connections' | 'streams' | 'access' | 'structures'> }> = async (server, { app }) => {
  const tags = ['chat'];
  const chat = { kind: 'structure', action: 'chat', from: 'body', node: 'body', runToken: 'delegate' } as const;
  const sseDoc = { description: 'text/event-stream of chat events: `id: <n>` and `data: <a ChatEvent as JSON>` per event', content: { 'text/event-stream': { schema: Type.String() } } };

  server.post(
    '/api/org/chat/message',
    {
      config: { access: chat, audit: false },
      schema: {
        operationId: 'sendMessage',
        summary: 'Send a message to a node and stream the turn as server-sent events',
        tags,
        body: ChatMessageSchema,
        response: { 200: sseDoc, ...problems(400, 401, 403, 404, 409, 413, 415, 429, 503, 507) },
      },
    },
    async (request, reply) => {
      const run = await startTurn(app, request, request.body);
      addLogIds(request, reply, { run_id: run.id });
      await streamRun(reply, run, streamOptions(app, request, run.id));
    },
  );

  server.post(
    '/api/org/chat/message/sync',
    {
      config: { access: chat, audit: false },
      schema: {
        operationId: 'sendMessageSync',
        summary: 'Send a message and wait for the whole turn (short tasks)',
        tags,
        body: ChatMessageSchema,
        response: { 200: SyncResultSchema, ...problems(400, 401, 403, 404, 409, 413, 415, 429, 503, 504, 507) },
      },
    },
    async (request, reply) => {
      const run = await startTurn(app, request, request.body);
      addLogIds(request, reply, { run_id: run.id });
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        run.done.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), app.config.syncTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        throw new OrgError('timeout', `the turn did not finish within ${app.config.syncTimeoutMs / 1000} s; it goes on — follow it with GET /api/org/chat/runs/${run.id}/events`, {
          extra: { run_id: run.id },
        });
      }
      const terminal = run.terminal;
      return {
        run_id: run.id,
        events: run.decoded(),
        summary: terminal?.type === 'complete' ? terminal.content.summary : '',
        artifacts: terminal?.type === 'complete' ? terminal.content.artifacts : [],
      };
    },
  );

  server.get(
    '/api/org/chat/history',
    {
      config: { access: { kind: 'structure', action: 'read_history', from: 'query', node: 'query', runToken: 'read' } },
      schema: {
        operationId: 'getChatHistory',
        summary: 'A node’s chat history, newest first, both senders, running turns included',
        tags,
        querystring: HistoryQuerySchema,
        response: { 200: Type.Array(HistoryMessageSchema), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { structureId, roleId } = nodeScopeOf(request);
      const { limit, before } = request.query;
      return app.chat.history(structureId, roleId, { limit: limit ?? HISTORY_LIMIT.default, ...(before ? { before } : {}) });
    },
  );

  server.get(
    '/api/org/chat/runs',
    {
      config: { access: { kind: 'structure', action: 'chat', from: 'query', optional: true, unscoped: true } },
      schema: {
        operationId: 'findRuns',
        summary: 'Runs whose id starts with a prefix (at least 4 characters), among the runs the caller may follow',
        description: 'With structure_id: that structure’s runs only. Without: every structure the caller can chat in (a node key: its own structure).',
        tags,
        querystring: Type.Intersect([RunSearchQuerySchema, Type.Object({ structure_id: Type.Optional(Uuid) })]),
        response: { 200: RunMatchesSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => findVisibleRuns(app, request, request.query.prefix),
  );

  server.get(
    '/api/org/chat/runs/:run_id/events',
    {
      config: { access: { kind: 'run', action: 'chat', runToken: 'own_run' } },
      schema: {
        operationId: 'followRun',
        summary: 'Replay a run’s events after Last-Event-ID, then follow it live (204 when it has finished and nothing follows)',
        tags,
        params: Type.Object({ run_id: Uuid }),
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })) }),
        response: { 200: sseDoc, 204: NoContent, ...problems(400, 401, 403, 404, 503) },
      },
    },
    async (request, reply) => {
      const after = Number(request.headers['last-event-id'] ?? 0);
      const { runId } = runScopeOf(request);
      const followed = await app.chat.follow(runId, after);
      // A run no longer in memory streams from the store, a part at a time.
      if (!('run' in followed)) return streamStored(reply, runId, followed.frames);
      const { run } = followed;
      // 204 tells an EventSource to stop reconnecting: the run is over and nothing follows.
      if (run.finished && run.lastSeq <= after) return reply.code(204).send(null);
      // A draining instance hands the followers of runs executing elsewhere to the other instances.
      if (!run.finished && app.streams.draining && !app.chat.runsHere(run.id)) throw new OrgError('unavailable', 'this instance is shutting down; follow the run again in a moment', { retryAfter: 1 });
      await streamRun(reply, run, streamOptions(app, request, run.id, after));
    },
  );

  server.post(
    '/api/org/chat/runs/:run_id/cancel',
    {
      config: { access: { kind: 'run', action: 'chat', runToken: 'own_run' }, audit: false },
      schema: {
        operationId: 'cancelRun',
        summary: 'Cancel a running turn; it ends with error "cancelled"',
        tags,
        params: Type.Object({ run_id: Uuid }),
        response: { 202: RunRefSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { runId } = runScopeOf(request);
      await app.chat.cancel(runId, 'cancelled', actorOf(request));
      return reply.code(202).send({ run_id: runId });
    },
  );
};
