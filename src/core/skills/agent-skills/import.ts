/**
 * An Agent Skill folder as an org skill. A folder org exported (its metadata carries
 * `org.` members) comes back exactly as it was: front matter, body (step files joined
 * back) and files. A foreign folder (for example from `.claude/skills`) becomes a draft
 * whose name, summary and steps come from its SKILL.md, whose foreign fields are kept
 * for the next export, and whose other files (scripts, references, assets) are kept as
 * files; nothing in it is ever run.
 */
import { normalizeBody } from '../file-format.js';
import { FrontMatterError, opensFrontMatter, readFrontMatter } from '../front-matter-read.js';
import { SLUG_MAX_LENGTH, isValidSlug } from '../slug.js';
import { LAYOUT_KEY, joinBody } from './body-split.js';
import { AGENT_SKILL_MEMBER } from './export.js';
import { decodeOrgMetadata, hasOrgMetadata, isRecord } from './metadata.js';
import { stepsFromMarkdown } from './steps.js';
import { SKILL_FILE, type SkillFolder } from './types.js';
import { AGENT_SKILL_FIELDS, validateAgentSkill } from './validate.js';

/** A skill read from a folder, ready to be stored. */
export interface ImportedSkill {
  /** The folder it came from. */
  folder: string;
  slug: string;
  /** org front matter (validated again when stored). */
  frontmatter: Record<string, unknown>;
  body: string;
  /** Its other files, by path inside the folder. */
  files: Map<string, Uint8Array>;
  /** `org` when org exported it (restored exactly), `foreign` otherwise. */
  origin: 'org' | 'foreign';
  /** Things worth knowing that did not stop the import (rule violations of the source, renamed fields). */
  warnings: string[];
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** A slug from any name: lowercase ASCII words joined by single hyphens, at most 64 characters. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '');
  return slug || 'imported-skill';
}

function titleOf(name: string, body: string): string {
  const heading = /^#[ \t]+(.+?)[ \t#]*$/m.exec(body)?.[1]?.trim();
  if (heading) return heading.slice(0, 200);
  const words = name.replace(/[-_]+/g, ' ').trim();
  return (words.charAt(0).toUpperCase() + words.slice(1)).slice(0, 200) || 'Imported skill';
}

/**
 * Reads one folder. Returns the skill, or the reason it cannot be imported (no
 * SKILL.md, no front matter, front matter that is not YAML, text that is not UTF-8).
 */
export function fromAgentSkill(folder: SkillFolder): { skill: ImportedSkill } | { problem: string } {
  const file = folder.files.get(SKILL_FILE) ?? folder.files.get('skill.md');
  if (!file) return { problem: 'no SKILL.md in the folder' };
  let text: string;
  try {
    text = decoder.decode(file);
  } catch {
    return { problem: 'SKILL.md is not UTF-8 text' };
  }
  // Only YAML front matter opened by a line that is exactly `---` is read (`---js` is never run).
  if (!opensFrontMatter(text)) return { problem: 'SKILL.md must start with a line that is exactly ---, then YAML front matter, then ---' };
  let data: Record<string, unknown>;
  let content: string;
  try {
    const parsed = readFrontMatter(text);
    data = parsed.data;
    content = parsed.content;
  } catch (error) {
    if (error instanceof FrontMatterError) return { problem: `SKILL.md: ${error.message}` };
    return { problem: `SKILL.md front matter is not valid YAML: ${error instanceof Error ? (error.message.split('\n')[0] ?? '') : 'unreadable'}` };
  }
  const files = new Map([...folder.files].filter(([path]) => path !== SKILL_FILE && path !== 'skill.md'));
  const warnings = validateAgentSkill(data, folder.name);

  if (hasOrgMetadata(data.metadata)) {
    let decoded;
    try {
      decoded = decodeOrgMetadata(data.metadata);
    } catch (error) {
      return { problem: error instanceof Error ? error.message : 'org metadata does not decode' };
    }
    let body = normalizeBody(content);
    if (data.metadata[LAYOUT_KEY] === 'split-steps') {
      const used = new Set<string>();
      try {
        body = joinBody(body, (path) => {
          const bytes = files.get(path);
          if (!bytes) return undefined;
          used.add(path);
          return new TextDecoder().decode(bytes);
        });
      } catch (error) {
        return { problem: `the split body cannot be joined: ${error instanceof Error ? error.message : 'unknown error'}` };
      }
      for (const path of used) files.delete(path);
    }
    const slug = typeof data.name === 'string' && isValidSlug(data.name) ? data.name : slugify(String(data.name ?? folder.name));
    return { skill: { folder: folder.name, slug, frontmatter: decoded.frontmatter, body, files, origin: 'org', warnings } };
  }

  const name = typeof data.name === 'string' && data.name.trim() !== '' ? data.name.trim() : folder.name;
  const slug = isValidSlug(name) ? name : slugify(name);
  if (slug !== name) warnings.push(`stored as ${slug}: "${name.slice(0, 80)}" is not a valid slug`);
  const foreign: Record<string, unknown> = {};
  for (const field of ['license', 'compatibility', 'allowed-tools'] as const) if (typeof data[field] === 'string') foreign[field] = data[field];
  const metadata: Record<string, string> = {};
  if (isRecord(data.metadata)) for (const [key, value] of Object.entries(data.metadata)) metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
  for (const [key, value] of Object.entries(data)) {
    if ((AGENT_SKILL_FIELDS as readonly string[]).includes(key)) continue;
    metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
    warnings.push(`front matter field ${key} is kept in metadata`);
  }
  if (Object.keys(metadata).length > 0) foreign.metadata = metadata;
  const description = typeof data.description === 'string' ? data.description.trim() : '';
  const body = normalizeBody(stepsFromMarkdown(normalizeBody(content)));
  const frontmatter: Record<string, unknown> = {
    type: 'skill',
    name: titleOf(name, body),
    category: 'general',
    difficulty: 'medium',
    tags: [],
    status: 'draft',
    summary: description,
    learned_by: 'user',
    tool_url: null,
  };
  if (Object.keys(foreign).length > 0) frontmatter[AGENT_SKILL_MEMBER] = foreign;
  return { skill: { folder: folder.name, slug, frontmatter, body, files, origin: 'foreign', warnings } };
}
