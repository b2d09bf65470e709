/**
 * The org MCP tools, registered on an `McpServer` over any {@link OrgToolBackend}, each
 * with an input and an output schema: `do`, `list_skills`, `list_peers`,
 * `search_skills`, `read_skill`. Failures become MCP tool errors (`isError`) with a
 * message meant for the calling agent.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isOrgError } from '../core/errors.js';
import { ToolError, type OrgToolBackend } from './backend.js';
import { describeEvent } from './progress.js';

/** Names of the tools, in the order they are listed. */
export const TOOL_NAMES = ['do', 'list_skills', 'list_peers', 'search_skills', 'read_skill'] as const;

/** Pause between the last progress notification of `do` and its result, in ms. */
const PROGRESS_SETTLE_MS = 25;

/** Options of {@link registerOrgTools}. */
export interface OrgToolsOptions {
  /** Reports unexpected failures (their details never reach the client). */
  onError?: (error: unknown) => void;
}

const attachmentShape = z.object({
  name: z.string().min(1).max(255).describe('file name'),
  content_base64: z.string().describe('the file content, base64-encoded (at most 10 MiB decoded)'),
  content_type: z.string().max(255).optional().describe('media type, e.g. text/csv'),
});

const skillEntryShape = z.looseObject({
  slug: z.string(),
  name: z.string(),
  category: z.string(),
  difficulty: z.string(),
  tags: z.array(z.string()),
  summary: z.string(),
  status: z.string(),
  learned_by: z.string(),
  learned_at: z.string(),
  tool_url: z.string().nullable(),
});

const matchShape = z.object({ slug: z.string(), score: z.number(), reason: z.string() });

const peerShape = z.object({
  role_id: z.string(),
  label: z.string(),
  state: z.string().describe('idle or working'),
  parent: z.string().nullable().describe('role_id of the parent node; null for the root'),
});

function json(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** Registers the org tools on `server`, acting through `backend`. */
export function registerOrgTools(server: McpServer, backend: OrgToolBackend, options: OrgToolsOptions = {}): void {
  const failure = (error: unknown): CallToolResult => {
    const expected = error instanceof ToolError || isOrgError(error);
    if (!expected) options.onError?.(error);
    const text = expected ? error.message : 'an internal error occurred';
    return { isError: true, content: [{ type: 'text', text }] };
  };
  const guard = async (work: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await work();
    } catch (error) {
      return failure(error);
    }
  };

  server.registerTool(
    'do',
    {
      title: 'Ask this node to do something',
      description:
        'Sends a natural-language message to the node this key belongs to and waits for its turn to end. ' +
        'Returns the summary and the artifacts it produced; progress notifications follow the turn event by event when a progressToken is given.',
      inputSchema: {
        message: z.string().min(1).max(100_000).describe('what the node should do'),
        attachments: z.array(attachmentShape).max(10).optional().describe('files staged to the node’s artifact shelf'),
      },
      outputSchema: {
        run_id: z.string().describe('id of the turn'),
        summary: z.string(),
        artifacts: z.array(z.string()).describe('names of the files the turn produced'),
        artifact_urls: z.array(z.string()).describe('download URLs of the artifacts (send the key as bearer)'),
      },
    },
    (args, extra) =>
      guard(async () => {
        const token = extra._meta?.progressToken;
        // Notifications are chained so they reach the client in order, and all before the result.
        let sent: Promise<void> = Promise.resolve();
        const onEvent =
          token === undefined
            ? undefined
            : (event: Parameters<typeof describeEvent>[0], seq: number) => {
                sent = sent
                  .then(() => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: seq, message: describeEvent(event) } }))
                  .catch(() => undefined);
              };
        const outcome = await backend.runTurn(
          { message: args.message, ...(args.attachments ? { attachments: args.attachments } : {}) },
          { ...(onEvent ? { onEvent } : {}), signal: extra.signal },
        );
        await sent;
        // The SDK client handles a notification a microtask after reading it but a response at
        // once: were both read in one chunk, the last progress would arrive after its request
        // had settled and be dropped. A short pause keeps them apart.
        if (onEvent) await new Promise((resolve) => setTimeout(resolve, PROGRESS_SETTLE_MS));
        if (outcome.status === 'error') throw new ToolError(`the turn failed: ${outcome.summary} (run ${outcome.run_id})`);
        const lines = [outcome.summary || 'Done.'];
        if (outcome.artifacts.length > 0) {
          lines.push('', 'Artifacts:', ...outcome.artifacts.map((name, index) => `- ${name}: ${outcome.artifact_urls[index] ?? ''}`));
        }
        const structured = { run_id: outcome.run_id, summary: outcome.summary, artifacts: outcome.artifacts, artifact_urls: outcome.artifact_urls };
        return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: structured };
      }),
  );

  server.registerTool(
    'list_skills',
    {
      title: 'List skills',
      description: 'The skill list of this key’s structure (complete and draft skills, sorted by slug).',
      inputSchema: {},
      outputSchema: { skills: z.array(skillEntryShape) },
    },
    () => guard(async () => json({ skills: await backend.listSkills() })),
  );

  server.registerTool(
    'list_peers',
    {
      title: 'List peers',
      description: 'The other nodes of this key’s structure: role_id, label, state and the role_id of their parent.',
      inputSchema: {},
      outputSchema: {
        self: z.object({ role_id: z.string(), label: z.string() }).describe('the node this key belongs to'),
        peers: z.array(peerShape),
      },
    },
    () => guard(async () => json(await backend.listPeers())),
  );

  server.registerTool(
    'search_skills',
    {
      title: 'Search skills',
      description: 'Ranked matches among the complete skills visible to this key’s structure, as the agents’ skill lookup sees them.',
      inputSchema: {
        query: z.string().min(1).max(1000).describe('natural-language description of the task'),
        limit: z.number().int().min(1).max(50).optional().describe('most matches to return (default 5)'),
      },
      outputSchema: { matches: z.array(matchShape) },
    },
    (args) => guard(async () => json({ matches: await backend.searchSkills(args.query, args.limit) })),
  );

  server.registerTool(
    'read_skill',
    {
      title: 'Read a skill',
      description: 'One skill by slug (any status): its front matter, markdown body and steps.',
      inputSchema: { slug: z.string().min(1).max(64).describe('the skill’s slug, e.g. chase-overdue-invoices') },
      outputSchema: {
        slug: z.string(),
        frontmatter: z.record(z.string(), z.unknown()),
        body: z.string(),
        steps: z.array(z.object({ id: z.string(), n: z.number(), title: z.string() })),
      },
    },
    (args) => guard(async () => json({ ...(await backend.readSkill(args.slug)) })),
  );
}
