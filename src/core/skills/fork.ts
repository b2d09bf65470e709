/**
 * Forking (API.md §10): a structure takes its own copy of an instance skill, which its
 * operators may then change. The copy is a structure skill with front matter
 * `forked_from: <slug>`, and its own files are copied too. With the default slug the fork
 * shadows the original for that structure; with another slug, `forked_from` hides the
 * original from that structure's list and search (see `visibility.ts`).
 */
import { alreadyExists, conflict, notFound } from '../errors.js';
import { writeAtomic } from '../storage/index.js';
import { STORE_LOCK, type StoreContext } from './context.js';
import { serializeSkill } from './file-format.js';
import { listResources, readResource, replaceResources } from './resources.js';
import { readSkillFile, signatureOf, skillPath } from './skill-file.js';
import { scopeDir, type SkillKey } from './skill-key.js';
import { assertSlug } from './slug.js';
import type { Skill } from './types.js';
import { commit, refuseNewSlug } from './writes.js';

/** Input of {@link forkSkill}. */
export interface ForkInput {
  /** The instance skill to copy. */
  slug: string;
  /** The structure that gets the copy. */
  structureId: string;
  /** The copy's slug (default: the original's). */
  as?: string;
  /** Who forks, for the git message. */
  actor?: string;
}

/**
 * Copies instance skill `slug` into structure `structureId`: 404 when there is no such
 * instance skill, 409 when the structure already has a skill by the copy's slug, or when
 * another slug is asked for that is an instance skill's.
 */
export async function forkSkill(ctx: StoreContext, input: ForkInput): Promise<Skill> {
  assertSlug(input.slug);
  const target: SkillKey = { slug: input.as ?? input.slug, structureId: input.structureId };
  assertSlug(target.slug, 'slug');
  return ctx.mutex.run(STORE_LOCK, async () => {
    const { root } = ctx.options;
    const source = await readSkillFile(root, { slug: input.slug });
    if (source.kind !== 'skill') throw notFound(`no instance skill ${input.slug} to fork`);
    const existing = await readSkillFile(root, target);
    if (existing.kind !== 'missing') {
      throw alreadyExists(`this structure already has a skill ${target.slug}`, { slug: target.slug });
    }
    if (target.slug !== input.slug && ctx.catalog.has(target.slug)) {
      throw conflict(`${target.slug} is the slug of an instance skill: choose another slug for the fork`);
    }
    refuseNewSlug(ctx, { slug: target.slug });
    const frontmatter = { ...source.skill.frontmatter, structure_id: input.structureId, forked_from: input.slug };
    const file = skillPath(root, target);
    const text = serializeSkill(frontmatter, source.skill.body);
    const files = new Map<string, Uint8Array>();
    for (const path of await listResources(root, input.slug)) {
      const data = await readResource(root, input.slug, path);
      if (data) files.set(path, data);
    }
    const written = [file];
    if (files.size > 0) written.push(...(await replaceResources(scopeDir(root, input.structureId), target.slug, files)));
    await writeAtomic(file, text);
    const stored = await readSkillFile(root, target);
    if (stored.kind !== 'skill') throw new Error(`the fork of ${input.slug} does not read back`);
    const signature = await signatureOf(file);
    if (signature) ctx.catalog.put(stored.skill, signature);
    ctx.changed({ type: 'upsert', slug: target.slug, structure_id: input.structureId, created: true, source: 'api' });
    await commit(ctx, written, `skill ${target.slug}: fork of ${input.slug}`, input.actor);
    return stored.skill;
  });
}
