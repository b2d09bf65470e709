/**
 * The Skills extension (`io.modelcontextprotocol/skills`) over org's library: the
 * complete skills visible to the key's structure, each served as its Agent Skill
 * folder at `skill://<slug>/…` (SKILL.md and its files), through the SDK's
 * `SkillsExtension` (skills/list, skills/get, resources/read).
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { SkillsExtension, skillEntry, type Skill, type SkillSource } from '@modelcontextprotocol/server/ext/skills';
import type { OrgToolBackend } from './backend.js';

const BASE = 'skill://';
const PAGE = 50;

function mimeOf(path: string): string | undefined {
  if (path.endsWith('.md')) return 'text/markdown';
  if (/\.(sh|bash)$/.test(path)) return 'text/x-shellscript';
  if (path.endsWith('.py')) return 'text/x-python';
  if (/\.(json)$/.test(path)) return 'application/json';
  if (/\.(txt|csv|ya?ml|js|ts)$/.test(path)) return 'text/plain';
  return undefined;
}

/** Splits `skill://<slug>/<path>` into its parts; undefined for other URIs. */
export function parseSkillUri(uri: string): { slug: string; path: string } | undefined {
  if (!uri.startsWith(BASE)) return undefined;
  const rest = uri.slice(BASE.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  return { slug: rest.slice(0, slash), path: decodeURI(rest.slice(slash + 1)) };
}

/** A skill source over `backend`. */
export function orgSkillSource(backend: OrgToolBackend): SkillSource {
  const entry = async (slug: string): Promise<Skill | undefined> => {
    const folder = await backend.skillFolder(slug);
    if (!folder) return undefined;
    return skillEntry(slug, Object.fromEntries(folder.files), { baseUri: BASE });
  };
  return {
    async list(params: { cursor?: string }) {
      const slugs = await backend.completeSkills();
      const start = params.cursor ? Number.parseInt(params.cursor, 10) || 0 : 0;
      const page = slugs.slice(start, start + PAGE);
      const skills = (await Promise.all(page.map(entry))).filter((skill): skill is Skill => skill !== undefined);
      return { skills, ...(start + PAGE < slugs.length ? { nextCursor: String(start + PAGE) } : {}) };
    },
    async get(uri: string) {
      const parts = parseSkillUri(uri);
      if (!parts || parts.path !== 'SKILL.md') return undefined;
      return entry(parts.slug);
    },
    async read(uri: string, _ctx: ServerContext) {
      const parts = parseSkillUri(uri);
      if (!parts) return undefined;
      const folder = await backend.skillFolder(parts.slug);
      const data = folder?.files.get(parts.path);
      if (!data) return undefined;
      const mimeType = mimeOf(parts.path);
      if (mimeType?.startsWith('text/') || mimeType === 'application/json') {
        try {
          return { text: new TextDecoder('utf-8', { fatal: true }).decode(data), mimeType };
        } catch {
          // Not UTF-8 after all: sent as bytes.
        }
      }
      return { bytes: data, ...(mimeType ? { mimeType } : {}) };
    },
  };
}

/** Attaches the Skills extension, serving the key's complete skills, to `server`. */
export function attachSkills(server: McpServer, backend: OrgToolBackend, onWarning: (message: string) => void): void {
  new SkillsExtension({ source: orgSkillSource(backend), baseUri: BASE, onWarning: (warning) => onWarning(`${warning.path}: ${warning.message}`) }).attach(server);
}
