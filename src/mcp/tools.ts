/**
 * The org MCP tools on an `McpServer`, over any {@link OrgToolBackend}: `do`,
 * `list_skills`, `list_peers`, `search_skills`, `read_skill`, each with an input and an
 * output schema, the read-only ones marked `readOnlyHint`. A blocking `do` sends
 * progress for every event of the turn and at least every `progressIntervalMs` while
 * it is quiet; a cancelled request cancels the turn. Failures become tool errors
 * (`isError`) with a message meant for the calling agent.
 */
import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import { isOrgError } from '../core/errors.js';
import { errorFields, type Log } from '../core/util/log.js';
import { ToolError, type OrgToolBackend, type TurnOutcome } from './backend.js';
import { describeEvent } from './progress.js';
import { traceContextOf } from './trace.js';
import { artifactUri } from './resources.js';
import { DoInput, DoOutput, ListPeersOutput, ListSkillsOutput, NoInput, ReadSkillInput, ReadSkillOutput, SearchInput, SearchOutput } from './schemas.js';

/** Names of the tools, in the order they are listed. */
export const TOOL_NAMES = ['do', 'list_skills', 'list_peers', 'search_skills', 'read_skill'] as const;

/** Options of {@link registerOrgTools}. */
export interface OrgToolsOptions {
  /** Which protocol era the server instance serves (decides what a closed connection means). */
  era: 'legacy' | 'modern';
  /** Longest quiet stretch of a blocking `do` before a progress notification is sent anyway (default 15 s). */
  progressIntervalMs?: number;
  /**
   * Aborted when the server stops serving the key (revocation, shutdown): a waiting `do`
   * answers with the reason and its turn goes on.
   */
  stop?: AbortSignal;
  /** Where unexpected failures are reported (their details never reach the client). */
  log: Log;
}

/** The result of `do` for a finished turn: text, a resource_link per artifact, structured content. */
export function doResult(backend: OrgToolBackend, outcome: TurnOutcome): CallToolResult {
  const structured = {
    run_id: outcome.run_id,
    status: outcome.status,
    summary: outcome.summary,
    artifacts: outcome.artifacts,
    artifact_urls: outcome.artifacts.map((name) => backend.artifactUrl(name)),
    learned: outcome.learned,
  };
  if (outcome.status !== 'complete') {
    const text = outcome.status === 'cancelled' ? `the turn was cancelled (run ${outcome.run_id})` : `the turn failed: ${outcome.summary} (run ${outcome.run_id})`;
    return { isError: true, content: [{ type: 'text', text }], structuredContent: structured };
  }
  const lines = [outcome.summary || 'Done.'];
  if (outcome.learned.length > 0) lines.push('', `Learned (draft for review): ${outcome.learned.map((skill) => skill.slug).join(', ')}`);
  return {
    content: [
      { type: 'text', text: lines.join('\n') },
      ...outcome.artifacts.map((name) => ({ type: 'resource_link' as const, uri: artifactUri(name), name, description: `artifact of run ${outcome.run_id}` })),
    ],
    structuredContent: structured,
  };
}

function json(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** True when an abort means the peer went away rather than asked to cancel (2025 revisions). */
function isConnectionClosed(reason: unknown): boolean {
  return reason instanceof SdkError && reason.code === SdkErrorCode.ConnectionClosed;
}

/** Registers the org tools on `server`, acting through `backend`. */
export function registerOrgTools(server: McpServer, backend: OrgToolBackend, options: OrgToolsOptions): void {
  const interval = options.progressIntervalMs ?? 15_000;
  const failure = (error: unknown): CallToolResult => {
    const expected = error instanceof ToolError || isOrgError(error);
    if (!expected) options.log('error', 'mcp: tool failed', errorFields(error));
    return { isError: true, content: [{ type: 'text', text: expected ? error.message : 'an internal error occurred' }] };
  };
  const guard = async (work: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await work();
    } catch (error) {
      return failure(error);
    }
  };
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

  server.registerTool(
    'do',
    {
      title: 'Ask this node to do something',
      description:
        'Sends a natural-language request to the node this key belongs to and returns when its turn ends: the summary, the artifacts (as resource links) and any skill it learned. ' +
        'Progress notifications follow the turn. Clients that support tasks get a task whose id is the run id; cancelling the request or the task cancels the turn.',
      inputSchema: DoInput,
      outputSchema: DoOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      ...(options.era === 'legacy' ? { execution: { taskSupport: 'optional' as const } } : {}),
    },
    (args, ctx: ServerContext) => guard(() => runBlocking(backend, args, ctx, interval, options)),
  );

  server.registerTool(
    'list_skills',
    { title: 'List skills', description: 'The skill list of this key’s structure (complete and draft skills, sorted by slug).', inputSchema: NoInput, outputSchema: ListSkillsOutput, annotations: readOnly },
    () =>
      guard(async () => {
        const skills = (await backend.listSkills()).map(({ tool_url, structure_id: _scope, ...entry }) => ({ ...entry, ...(tool_url ? { tool_url } : {}) }));
        return json({ skills });
      }),
  );

  server.registerTool(
    'list_peers',
    {
      title: 'List peers',
      description: 'The other nodes of this key’s structure (never the key’s own node): role_id, label, state and the role_id of their parent.',
      inputSchema: NoInput,
      outputSchema: ListPeersOutput,
      annotations: readOnly,
    },
    () =>
      guard(async () => {
        const { self, peers } = await backend.listPeers();
        const shown = ({ parent, ...node }: (typeof peers)[number]) => ({ ...node, ...(parent ? { parent } : {}) });
        return json({ self: shown(self), peers: peers.map(shown) });
      }),
  );

  server.registerTool(
    'search_skills',
    {
      title: 'Search skills',
      description: 'Ranked matches among the complete skills visible to this key’s structure, as the agents’ skill lookup sees them.',
      inputSchema: SearchInput,
      outputSchema: SearchOutput,
      annotations: readOnly,
    },
    (args) => guard(async () => json({ matches: await backend.searchSkills(args.query, args.limit) })),
  );

  server.registerTool(
    'read_skill',
    { title: 'Read a skill', description: 'One skill by slug (any status): its front matter, markdown body and steps.', inputSchema: ReadSkillInput, outputSchema: ReadSkillOutput, annotations: readOnly },
    (args) => guard(async () => json({ ...(await backend.readSkill(args.slug)) })),
  );
}

/** A blocking `do`: start the turn, report progress, end with its outcome or cancel it with the request. */
async function runBlocking(
  backend: OrgToolBackend,
  args: { message: string; attachments?: { name: string; content_base64: string; content_type?: string }[] | undefined },
  ctx: ServerContext,
  interval: number,
  options: OrgToolsOptions,
): Promise<CallToolResult> {
  const traceContext = traceContextOf(ctx.mcpReq._meta);
  const turn = await backend.startTurn({ message: args.message, ...(args.attachments ? { attachments: args.attachments } : {}), ...(traceContext ? { traceContext } : {}) });
  const token = ctx.mcpReq._meta?.progressToken;
  let count = 0;
  let lastSent = Date.now();
  // Notifications are chained so they leave in order, all before the result.
  let sent: Promise<unknown> = Promise.resolve();
  const progress = (message: string) => {
    lastSent = Date.now();
    if (token === undefined) return;
    const value = ++count;
    sent = sent.then(() => ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: value, message } })).catch(() => undefined);
  };
  const unfollow = turn.follow((event) => progress(describeEvent(event)));
  // Ticks at half the interval, so no gap between two notifications exceeds it.
  const half = Math.max(1, Math.floor(interval / 2));
  const heartbeat = setInterval(() => {
    if (Date.now() - lastSent >= half) progress(`working (run ${turn.run_id})`);
  }, half);
  heartbeat.unref();

  const signals = [ctx.mcpReq.signal, options.stop].filter((signal): signal is AbortSignal => signal !== undefined);
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    for (const signal of signals) {
      if (signal.aborted) resolve('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  try {
    const ended = await Promise.race([turn.done, aborted]);
    if (ended !== 'aborted') {
      await sent;
      return doResult(backend, ended);
    }
    if (options.stop?.aborted) {
      const reason: unknown = options.stop.reason;
      throw new ToolError(`${typeof reason === 'string' ? reason : 'stopped waiting'}; the turn goes on (run ${turn.run_id})`);
    }
    // The client cancelled the request (2025: notifications/cancelled; 2026: it closed the
    // request's stream): the turn is cancelled with it. A 2025 session closing under a
    // waiting call is not a cancellation: the turn goes on and can be resumed.
    if (options.era === 'legacy' && isConnectionClosed(ctx.mcpReq.signal.reason)) {
      throw new ToolError(`the session closed; the turn goes on (run ${turn.run_id})`);
    }
    await backend.cancelTurn(turn.run_id).catch((error: unknown) => options.log('error', 'mcp: cancelling a turn failed', errorFields(error)));
    return doResult(backend, await turn.done);
  } finally {
    clearInterval(heartbeat);
    unfollow();
    for (const signal of signals) signal.removeEventListener('abort', onAbort);
  }
}
