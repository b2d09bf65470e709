/**
 * The input and output schemas of the org tools (zod 4), written to list as portable
 * JSON Schema: every object has `type: "object"` and named properties, nothing is
 * `type: [..., "null"]` or an empty `additionalProperties: {}` (MCP Inspector
 * `--strict` and the stricter clients reject those). A value that may be absent is
 * optional instead of nullable.
 */
import { z } from 'zod';
import { MEDIA_TYPE_MAX_LENGTH, MEDIA_TYPE_PATTERN } from '../core/util/patterns.js';

const attachment = z.object({
  name: z.string().min(1).max(255).describe('file name'),
  content_base64: z.string().describe('the file content, base64-encoded (at most 10 MiB decoded)'),
  content_type: z.string().max(MEDIA_TYPE_MAX_LENGTH).regex(new RegExp(MEDIA_TYPE_PATTERN), 'must be a media type such as text/csv').optional().describe('media type, e.g. text/csv'),
});

/** Input of `do`: the request in plain words and files for the shelf, as the chat message endpoint takes them. */
export const DoInput = z.object({
  message: z.string().min(1).max(100_000).describe('what the node should do, in plain words'),
  attachments: z.array(attachment).max(10).optional().describe('files staged to the node’s artifact shelf'),
});

/** Output of `do` (also the result of a `do` task). */
export const DoOutput = z.object({
  run_id: z.string().describe('id of the turn (also the task id when run as a task)'),
  status: z.enum(['complete', 'error', 'cancelled']).describe('how the turn ended'),
  summary: z.string().describe('the summary of a complete turn, or what went wrong'),
  artifacts: z.array(z.string()).describe('names of the files the turn produced (each also a resource_link in the content)'),
  artifact_urls: z.array(z.string()).describe('HTTP download URLs of the artifacts (send the key as bearer)'),
  learned: z.array(z.object({ slug: z.string(), name: z.string() })).describe('skills the turn stored as drafts for review'),
});

const skillEntry = z.object({
  slug: z.string(),
  name: z.string(),
  category: z.string(),
  difficulty: z.string(),
  tags: z.array(z.string()),
  summary: z.string(),
  status: z.string(),
  learned_by: z.string(),
  learned_at: z.string().optional(),
  tool_url: z.string().optional().describe('URL of the skill’s tool; absent when it has none'),
});

/** Output of `list_skills`. */
export const ListSkillsOutput = z.object({ skills: z.array(skillEntry) });

/** Output of `list_peers`. */
export const ListPeersOutput = z.object({
  self: z
    .object({
      role_id: z.string(),
      label: z.string(),
      state: z.string().describe('idle or working'),
      parent: z.string().optional().describe('role_id of the parent node; absent for the root'),
    })
    .describe('the node this key belongs to (not one of the peers)'),
  peers: z
    .array(
      z.object({
        role_id: z.string(),
        label: z.string(),
        state: z.string().describe('idle or working'),
        parent: z.string().optional().describe('role_id of the parent node; absent for the root'),
      }),
    )
    .describe('the other nodes of the structure'),
});

/** Input of `search_skills`. */
export const SearchInput = z.object({
  query: z.string().min(1).max(1000).describe('natural-language description of the task'),
  limit: z.number().int().min(1).max(50).optional().describe('most matches to return (default 5)'),
});

/** Output of `search_skills`. */
export const SearchOutput = z.object({ matches: z.array(z.object({ slug: z.string(), score: z.number(), reason: z.string() })) });

/** Input of `read_skill`. */
export const ReadSkillInput = z.object({ slug: z.string().min(1).max(64).describe('the skill’s slug, e.g. chase-overdue-invoices') });

/** Output of `read_skill`. */
export const ReadSkillOutput = z.object({
  slug: z.string(),
  frontmatter: z.object({ name: z.string(), status: z.string(), summary: z.string().optional() }).catchall(z.json()).describe('the skill’s front matter (every member)'),
  body: z.string(),
  steps: z.array(z.object({ id: z.string(), n: z.number(), title: z.string() })),
});

/** The empty input of the tools that take none. */
export const NoInput = z.object({});
