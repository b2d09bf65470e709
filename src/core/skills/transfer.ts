/**
 * Agent Skills import and export over the skill store: a skill as its Agent Skill
 * folder, and folders as skills, first as a dry-run report of what would happen, then
 * applied through the store's normal writes (validation, atomic files, git).
 */
import { isDeepStrictEqual } from 'node:util';
import { isOrgError } from '../errors.js';
import type { ImportEntry, ImportReport } from '../schemas/skills.js';
import { fromAgentSkill, toAgentSkill, type SkillFolder } from './agent-skills/index.js';
import { validateFrontmatter } from './frontmatter.js';
import { checkResources } from './resources.js';
import type { SkillStore } from './store.js';
import { MAX_BODY_BYTES } from './writes.js';

export type { ImportEntry, ImportReport };

/** Options of {@link importFolders}. */
export interface ImportOptions {
  /**
   * The structure importing: every skill is stored as its own (API.md §10), whatever
   * `structure_id` the upload names; undefined imports instance skills (the instance
   * administrator).
   */
  structureId?: string;
  actor?: string;
  /** Report only (the default), or write. */
  dryRun: boolean;
  /** Checks a skill's `tool_url` against the egress policy (throws to refuse the import). */
  checkToolUrl?: (url: string, slug: string) => Promise<void>;
}

/** The Agent Skill folder of a skill as `structureId` reaches it by slug (its own, else the instance skill); undefined when there is none. */
export async function exportFolder(store: SkillStore, slug: string, structureId?: string): Promise<SkillFolder | undefined> {
  const skill = await store.get(slug, structureId);
  if (!skill) return undefined;
  return toAgentSkill(skill, await store.files(slug, structureId));
}

function sameFiles(a: ReadonlyMap<string, Uint8Array>, b: ReadonlyMap<string, Uint8Array>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, data] of a) {
    const other = b.get(path);
    if (!other || Buffer.compare(Buffer.from(data), Buffer.from(other)) !== 0) return false;
  }
  return true;
}

/** Plans, and unless `dryRun` applies, the import of `folders`. */
export async function importFolders(store: SkillStore, folders: readonly SkillFolder[], options: ImportOptions): Promise<ImportReport> {
  const report: ImportReport = { dry_run: options.dryRun, skills: [], problems: [] };
  const seen = new Set<string>();
  for (const folder of folders) {
    const read = fromAgentSkill(folder);
    if ('problem' in read) {
      report.skills.push({ folder: folder.name, slug: folder.name, origin: 'unknown', action: 'skip', files: [], warnings: [], problem: read.problem });
      continue;
    }
    const { skill } = read;
    const entry: ImportEntry = { folder: folder.name, slug: skill.slug, origin: skill.origin, action: 'create', files: [...skill.files.keys()], warnings: skill.warnings };
    report.skills.push(entry);
    const skip = (problem: string) => {
      entry.action = 'skip';
      entry.problem = problem;
    };
    if (seen.has(skill.slug)) {
      skip(`another folder of this upload is also ${skill.slug}`);
      continue;
    }
    seen.add(skill.slug);
    // Stored as the importing structure's own skill (or an instance skill), whatever the upload says.
    const frontmatter: Record<string, unknown> = { ...skill.frontmatter };
    delete frontmatter.structure_id;
    if (options.structureId !== undefined) frontmatter.structure_id = options.structureId;
    const checked = validateFrontmatter(frontmatter, { learned_by: 'user', learned_at: new Date().toISOString(), category: 'general', difficulty: 'medium' });
    if (!checked.ok) {
      skip(checked.errors.map((error) => `${error.path} ${error.message}`).join('; '));
      continue;
    }
    // A refused tool address refuses the whole import (400 egress_refused), dry run or not.
    if (checked.frontmatter.tool_url) await options.checkToolUrl?.(checked.frontmatter.tool_url, skill.slug);
    entry.status = checked.frontmatter.status;
    if (Buffer.byteLength(skill.body, 'utf8') > MAX_BODY_BYTES) {
      skip(`the body is larger than ${MAX_BODY_BYTES} bytes`);
      continue;
    }
    try {
      checkResources(skill.files);
    } catch (error) {
      skip(isOrgError(error) ? (error.errors?.map((item) => `${item.path} ${item.message}`).join('; ') ?? error.message) : 'invalid files');
      continue;
    }
    // Only the importing scope and the instance library are looked at: nothing here
    // depends on what another structure has.
    const existing = await store.get(skill.slug, options.structureId);
    if (existing) {
      if (existing.frontmatter.structure_id !== options.structureId) {
        skip(`${skill.slug} is an instance skill: fork it to change it for this structure, or rename the folder to import it as a new skill`);
        continue;
      }
      const same =
        existing.body === skill.body &&
        isDeepStrictEqual({ ...existing.frontmatter, learned_at: null }, { ...checked.frontmatter, learned_at: null }) &&
        sameFiles(await store.files(skill.slug, options.structureId), skill.files);
      entry.action = same ? 'unchanged' : 'update';
    }
    if (options.dryRun || entry.action === 'unchanged') continue;
    const actor = options.actor ?? 'import';
    const scope = options.structureId !== undefined ? { structureId: options.structureId } : {};
    await store.upsert({ slug: skill.slug, frontmatter, body: skill.body, actor, ...scope });
    await store.putFiles(skill.slug, skill.files, { actor, ...scope });
  }
  return report;
}
