/**
 * The tools the LLM runtime offers the model, as OpenAI function definitions, and
 * their execution: skill search and reading and artifact writing go through the
 * turn's `TurnTools`; decisions, milestones and learned skills become chat events.
 */
import { Value } from 'typebox/value';
import type { EventInput } from '../chat/types.js';
import { DELEGATION_TOOLS, executeDelegationTool, isDelegationTool } from './llm-delegation-tools.js';
import type { TurnTools } from './types.js';

/** An OpenAI `tools[]` entry. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

function tool(name: string, description: string, properties: Record<string, unknown>, required: string[]): FunctionTool {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } } };
}

const text = (description: string) => ({ type: 'string', description });
/** A string argument that must say something. */
const words = (description: string) => ({ type: 'string', minLength: 1, description });

/** The tools sent with every request. */
export const LLM_TOOLS: readonly FunctionTool[] = [
  tool('search_skills', 'Search the skill library of this workspace. Returns the best matches with a score.', {
    query: words('What to look for.'),
    limit: { type: 'integer', minimum: 1, maximum: 10, description: 'How many matches (default 5).' },
  }, ['query']),
  tool('read_skill', 'Read a skill (front matter and markdown body) by its slug.', { slug: words('The skill slug.') }, ['slug']),
  tool('write_artifact', "Save a file to this node's artifact shelf. Returns the stored name.", {
    name: words('File name, e.g. report.md.'),
    content: text('The file content.'),
    content_type: text('MIME type (default guessed from the name).'),
  }, ['name', 'content']),
  tool('record_decision', 'Commit a decision to the workspace log.', { title: words('Short title.'), body: words('The decision and why.') }, ['title', 'body']),
  tool('flag_milestone', 'Flag a milestone of the work in progress.', { title: words('What was reached.') }, ['title']),
  tool('learn_skill', 'Propose a new skill learned from this turn; it is stored as a draft for review.', {
    slug: words('kebab-case slug.'),
    name: words('Human name.'),
    summary: text('One sentence on what it does.'),
    body: words('Markdown playbook, one "## Step n: title" section per step.'),
  }, ['slug', 'name', 'body']),
  // The org chart: list_peers and delegate (llm-delegation-tools.ts).
  ...DELEGATION_TOOLS,
];

/** What a tool needs while it runs. */
export interface ToolContext {
  tools: TurnTools;
  /** Emits a side event (decision, milestone, skill_learned). */
  emit(event: EventInput): Promise<void>;
  /** Names of the artifacts written so far in the turn (appended to). */
  artifacts: string[];
  /**
   * The skills the turn follows so far: the one invoked by `/<slug>`, and those it read
   * (`read_skill` adds to `read`). A turn that follows a skill learns nothing, and
   * `learn_skill` says so at once.
   */
  following?: { invoked?: string; read: Set<string> };
}

/** What `learn_skill` answers: whether the draft will be stored, and if not, why. */
function learnAnswer(slug: string, following: ToolContext['following']): Record<string, unknown> {
  const covering = following?.invoked ? `${following.invoked} (invoked by its slug)` : following?.read.size ? `${[...following.read][0]} (read it)` : undefined;
  if (covering) return { learned: slug, stored: false, reason: `not stored: this turn followed the skill ${covering}; only turns that no skill covers are learned` };
  return { learned: slug, note: 'stored as a draft for review when the turn completes, unless the turn goes on to follow a skill (reads one or runs its steps)' };
}

/** Raised for arguments the model got wrong; its message goes back to the model. */
class ToolArgumentError extends Error {}

function requireString(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  if (typeof value !== 'string' || !value.trim()) throw new ToolArgumentError(`"${key}" must be a non-empty string`);
  return value;
}

function optionalString(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ToolArgumentError(`"${key}" must be a string`);
  return value;
}

const CONTENT_TYPES: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  json: 'application/json',
  html: 'text/html',
  csv: 'text/csv',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  xml: 'application/xml',
};

/** The content type of an artifact from its name (`text/plain` when unknown). */
export function guessContentType(name: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (extension && CONTENT_TYPES[extension]) || 'text/plain';
}

/** Longest skill body handed back to the model. */
const READ_LIMIT = 20_000;

/** At most this many problems are named when arguments do not fit a tool's schema. */
const ARGUMENT_PROBLEMS = 5;

/**
 * Why `args` do not fit the parameters schema of the tool `name` (every tool's, the same
 * schema the model was sent), or undefined when they do.
 */
export function argumentProblems(name: string, args: Record<string, unknown>): string | undefined {
  const definition = LLM_TOOLS.find((entry) => entry.function.name === name);
  if (!definition) return undefined;
  const problems = [...Value.Errors(definition.function.parameters as never, args)]
    // An unknown member is reported twice (the member, and the object): keep the object's.
    .filter((error) => error.keyword !== 'boolean')
    .map((error) => {
      const where = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const params = error.params as { additionalProperties?: string[]; requiredProperties?: string[] };
      if (error.keyword === 'additionalProperties') return `unknown ${params.additionalProperties?.map((key) => `"${key}"`).join(', ') ?? 'members'}`;
      if (error.keyword === 'required') return `missing ${params.requiredProperties?.map((key) => `"${key}"`).join(', ') ?? 'members'}`;
      return where ? `"${where}" ${error.message}` : error.message;
    });
  return problems.length > 0 ? [...new Set(problems)].slice(0, ARGUMENT_PROBLEMS).join('; ') : undefined;
}

/**
 * Runs one tool with already parsed arguments and returns its result. Bad arguments
 * and unknown tools give `{error}` (the model can correct itself); failures of the
 * services are reported the same way.
 */
export async function executeTool(name: string, args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
  const problems = argumentProblems(name, args);
  if (problems) return { error: `invalid arguments for ${name}: ${problems}` };
  try {
    switch (name) {
      case 'search_skills': {
        const query = requireString(args, 'query');
        const limit = typeof args.limit === 'number' && Number.isFinite(args.limit) ? Math.min(10, Math.max(1, Math.trunc(args.limit))) : 5;
        return { matches: await context.tools.searchSkills(query, limit) };
      }
      case 'read_skill': {
        const slug = requireString(args, 'slug');
        const skill = await context.tools.readSkill(slug);
        if (!skill) return { error: `no skill named "${slug}"` };
        context.following?.read.add(skill.slug);
        const body = skill.body.length > READ_LIMIT ? `${skill.body.slice(0, READ_LIMIT)}\n\n[truncated]` : skill.body;
        return { slug: skill.slug, frontmatter: skill.frontmatter, body };
      }
      case 'write_artifact': {
        const fileName = requireString(args, 'name');
        const content = optionalString(args, 'content') ?? '';
        const contentType = optionalString(args, 'content_type') || guessContentType(fileName);
        const stored = await context.tools.writeArtifact(fileName, content, contentType);
        if (!context.artifacts.includes(stored)) context.artifacts.push(stored);
        return { name: stored, size: Buffer.byteLength(content), content_type: contentType };
      }
      case 'record_decision': {
        const title = requireString(args, 'title');
        const body = optionalString(args, 'body') ?? '';
        await context.emit({ type: 'decision', content: { title, body } });
        return { recorded: true };
      }
      case 'flag_milestone': {
        const title = requireString(args, 'title');
        await context.emit({ type: 'milestone', content: { title } });
        return { flagged: true };
      }
      case 'learn_skill': {
        const slug = requireString(args, 'slug');
        const skillName = requireString(args, 'name');
        const body = requireString(args, 'body');
        const summary = optionalString(args, 'summary');
        await context.emit({ type: 'skill_learned', content: { slug, name: skillName, ...(summary ? { summary } : {}), body } });
        return learnAnswer(slug, context.following);
      }
      default:
        if (isDelegationTool(name)) return await executeDelegationTool(name, args, context.tools);
        return { error: `unknown tool "${name}"; the tools are ${LLM_TOOLS.map((entry) => entry.function.name).join(', ')}` };
    }
  } catch (error) {
    if (error instanceof ToolArgumentError) return { error: `invalid arguments for ${name}: ${error.message}` };
    return { error: `${name} failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
