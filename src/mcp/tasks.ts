/**
 * `do` as a task, when the client supports tasks: at 2025-11-25 a `tools/call` with a
 * `task` member (core tasks: `tasks/get`, `tasks/result`, `tasks/cancel`), at
 * 2026-07-28 any `do` from a client that declares the `io.modelcontextprotocol/tasks`
 * extension (`tasks/get` with the result inlined, `tasks/update`, `tasks/cancel`). The task id is the
 * run id, so a task is as durable as the run's history: it survives a dropped
 * connection and a restart of the client, and `tasks/get` works on any request with
 * the same key. `tasks/cancel` cancels the run. While working, the status message
 * follows the turn event by event.
 */
import type { JSONRPCRequest, McpServerOptions, Result, ServerContext, Implementation, ServerOptions } from '@modelcontextprotocol/server';
import { McpServer, MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { OrgToolBackend, TurnSnapshot } from './backend.js';
import { outcomeOf } from './outcome.js';
import { describeEvent } from './progress.js';
import { DoInput } from './schemas.js';
import { doResult } from './tools.js';
import { traceContextOf } from './trace.js';

/** The tasks extension of the 2026-07-28 revision. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** How often clients are asked to poll, in ms. */
export const POLL_INTERVAL_MS = 1000;

/** Handles a `tools/call` as a task when it should be one; undefined otherwise. */
export type TaskHook = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result | undefined>;

/**
 * A `Server` whose `tools/call` can answer with a task: the SDK validates every
 * `tools/call` result as a `CallToolResult`, which a task handle is not, so a task is
 * created before that validation runs (through the SDK's documented `_wrapHandler` hook).
 */
export class TaskAwareServer extends Server {
  taskHook: TaskHook | undefined;

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return async (request, ctx) => (await this.taskHook?.(request, ctx)) ?? wrapped(request, ctx);
  }
}

/** An `McpServer` built on a {@link TaskAwareServer}. */
export class OrgMcpServer extends McpServer {
  declare readonly server: TaskAwareServer;

  constructor(info: Implementation, options: Omit<McpServerOptions, 'capabilities'> & ServerOptions) {
    super(info);
    // McpServer builds a plain Server and installs nothing on it until tools or resources
    // are registered (no capabilities are passed), so it can be replaced here.
    (this as unknown as { server: Server }).server = new TaskAwareServer(info, options);
  }
}

function statusOf(snapshot: TurnSnapshot): 'working' | 'completed' | 'cancelled' {
  const outcome = outcomeOf(snapshot.run_id, snapshot.events);
  if (snapshot.status === 'running' || !outcome) return 'working';
  return outcome.status === 'cancelled' ? 'cancelled' : 'completed';
}

function statusMessage(snapshot: TurnSnapshot): string {
  const last = snapshot.events.at(-1);
  return last ? describeEvent(last) : 'queued';
}

/** Installs task support for `do` on `server` for the given era. */
export function installTasks(server: OrgMcpServer, backend: OrgToolBackend, era: 'legacy' | 'modern'): void {
  const low = server.server;
  const snapshot = async (taskId: string): Promise<TurnSnapshot> => {
    const found = await backend.inspectTurn(taskId).catch(() => undefined);
    if (!found) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return found;
  };
  const finalResult = (found: TurnSnapshot) => {
    const outcome = outcomeOf(found.run_id, found.events);
    return outcome ? (doResult(backend, outcome) as unknown as Record<string, unknown>) : undefined;
  };

  const TaskParams = z.object({ taskId: z.string().min(1) });
  if (era === 'legacy') {
    low.registerCapabilities({ tasks: { cancel: {}, requests: { tools: { call: {} } } } } as never);
    const task = (found: TurnSnapshot) => ({
      taskId: found.run_id,
      status: statusOf(found),
      statusMessage: statusMessage(found),
      createdAt: found.created_at,
      lastUpdatedAt: found.updated_at,
      ttl: null,
      pollInterval: POLL_INTERVAL_MS,
    });
    low.taskHook = async (request) => {
      const params = request.params as { name?: unknown; arguments?: unknown; task?: unknown; _meta?: unknown } | undefined;
      if (params?.name !== 'do' || params.task === undefined || params.task === null) return undefined;
      const found = await start(backend, params.arguments, params._meta);
      return { task: task(found) };
    };
    low.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }) => task(await snapshot(taskId)));
    low.setRequestHandler('tasks/result', { params: TaskParams }, async ({ taskId }, ctx) => {
      const outcome = await backend.awaitTurn(taskId, ctx.mcpReq.signal);
      if (!outcome) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
      return { ...doResult(backend, outcome), _meta: { 'io.modelcontextprotocol/related-task': { taskId: outcome.run_id } } };
    });
    low.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }) => {
      const found = await snapshot(taskId);
      if (statusOf(found) !== 'working') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task ${found.run_id}: it has already ended`);
      await backend.cancelTurn(found.run_id);
      return task(await snapshot(found.run_id));
    });
    return;
  }

  low.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  const declared = () => low.getClientCapabilities()?.extensions?.[TASKS_EXTENSION] !== undefined;
  const requireDeclared = () => {
    if (!declared()) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  };
  const detailed = (found: TurnSnapshot) => {
    const status = statusOf(found);
    const result = status === 'completed' ? finalResult(found) : undefined;
    return {
      taskId: found.run_id,
      status,
      statusMessage: statusMessage(found),
      createdAt: found.created_at,
      lastUpdatedAt: found.updated_at,
      ttlMs: null,
      pollIntervalMs: POLL_INTERVAL_MS,
      ...(result ? { result } : {}),
    };
  };
  low.taskHook = async (request) => {
    const params = request.params as { name?: unknown; arguments?: unknown; _meta?: unknown } | undefined;
    if (params?.name !== 'do' || !declared()) return undefined;
    const found = await start(backend, params.arguments, params._meta);
    return { resultType: 'task', ...detailed(found) };
  };
  low.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }) => {
    requireDeclared();
    return detailed(await snapshot(taskId));
  });
  low.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }) => {
    requireDeclared();
    const found = await snapshot(taskId);
    if (statusOf(found) === 'working') await backend.cancelTurn(found.run_id);
    return {};
  });
  // A `do` turn never asks its client for input (it is never `input_required`), so no
  // key is ever outstanding: the responses are acknowledged and ignored, as the
  // extension asks of responses to keys that are not outstanding. The task must exist
  // and be visible to the key, as for tasks/get.
  // The SDK lifts `inputResponses` off the params into `ctx.mcpReq` (as for any retried request).
  low.setRequestHandler('tasks/update', { params: TaskParams }, async ({ taskId }, ctx) => {
    requireDeclared();
    if (ctx.mcpReq.inputResponses === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params for tasks/update: inputResponses is required (an object keyed by input request)');
    await snapshot(taskId);
    return {};
  });
}

/** Starts the turn of a `do` task (in the trace its request's `_meta` names); answers only once `tasks/get` can see it. */
async function start(backend: OrgToolBackend, args: unknown, meta: unknown): Promise<TurnSnapshot> {
  const parsed = DoInput.safeParse(args ?? {});
  if (!parsed.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for tool do: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  const traceContext = traceContextOf(meta);
  const turn = await backend.startTurn({ message: parsed.data.message, ...(parsed.data.attachments ? { attachments: parsed.data.attachments } : {}), ...(traceContext ? { traceContext } : {}) });
  return (await backend.inspectTurn(turn.run_id)) ?? { run_id: turn.run_id, status: 'running', events: [], created_at: turn.created_at, updated_at: turn.created_at };
}
