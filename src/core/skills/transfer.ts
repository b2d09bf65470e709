/**
 * Agent Skills import and export over the skill store: a skill as its Agent Skill
 * folder, and folders as skills, first as a dry-run report of what would happen, then
 * applied through the store's normal writes (validation, atomic files, git).
 */
import { isDeepStrictEqual } from 'node:util';
import { isOrgError } from '../errors.js';
import type { ImportEntry, ImportReport } from '../schemas/skills.js';
import { fromAgentSkill, toAgentSkill, type SkillFolder } from './agent-skills/index.js';
import { visibleTo } from './entry.js';
import { validateFrontmatter } from './frontmatter.js';
import { checkResources } from './resources.js';
import type { SkillStore } from './store.js';
import { MAX_BODY_BYTES } from './writes.js';

export type { ImportEntry, ImportReport };

/** Options of {@link importFolders}. */
export interface ImportOptions {
  /** The structure importing: a skill scoped to another structure is never touched. */
  structureId?: string;
  actor?: string;
  /** Report only (the default), or write. */
  dryRun: boolean;
  /** Checks a skill's `tool_url` against the egress policy (throws to refuse the import). */
  checkToolUrl?: (url: string, slug: string) => Promise<void>;
}

/** The Agent Skill folder of a skill visible to `structureId`; undefined when there is none. */
export async function exportFolder(store: SkillStore, slug: string, structureId?: string): Promise<SkillFolder | undefined> {
  const skill = await store.get(slug);
  if (!skill || !visibleTo(skill.frontmatter.structure_id, structureId)) return undefined;
  return toAgentSkill(skill, await store.files(slug));
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
    const checked = validateFrontmatter(skill.frontmatter, { learned_by: 'user', learned_at: new Date().toISOString(), category: 'general', difficulty: 'medium' });
    if (!checked.ok) {
      skip(checked.errors.map((error) => `${error.path} ${error.message}`).join('; '));
      continue;
    }
    // A refused tool address refuses the whole import (400 egress_refused), dry run or not.
    if (checked.frontmatter.tool_url) await options.checkToolUrl?.(checked.frontmatter.tool_url, skill.slug);
    entry.status = checked.frontmatter.status;
    const scope = checked.frontmatter.structure_id;
    if (scope !== undefined && scope !== options.structureId) {
      skip('the skill belongs to another structure');
      continue;
    }
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
    const existing = await store.get(skill.slug);
    if (existing) {
      if (!visibleTo(existing.frontmatter.structure_id, options.structureId)) {
        skip(`a skill ${skill.slug} of another structure exists`);
        continue;
      }
      const same =
        existing.body === skill.body &&
        isDeepStrictEqual({ ...existing.frontmatter, learned_at: null }, { ...checked.frontmatter, learned_at: null }) &&
        sameFiles(await store.files(skill.slug), skill.files);
      entry.action = same ? 'unchanged' : 'update';
    }
    if (options.dryRun || entry.action === 'unchanged') continue;
    const actor = options.actor ?? 'import';
    await store.upsert({ slug: skill.slug, frontmatter: skill.frontmatter, body: skill.body, actor, ...(options.structureId ? { structureId: options.structureId } : {}) });
    await store.putFiles(skill.slug, skill.files, { actor, ...(options.structureId ? { structureId: options.structureId } : {}) });
  }
  return report;
}
