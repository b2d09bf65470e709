/**
 * How a skill read reaches a skill by slug, shared by every route that reads one (GET
 * one, its history, its versions): with a structure, its own skill, else the instance
 * skill; without one, the instance skill, else the skill of the one structure of the
 * caller's that has such a skill (several → 400 asking for structure_id). Another
 * structure's skill is answered exactly like a slug nobody has.
 */
import type { FastifyRequest } from 'fastify';
import type { App } from '../../app.js';
import { invalid, isOrgError, notFound } from '../../core/errors.js';
import type { Skill, SkillKey } from '../../core/skills/index.js';

/** The skill a read of `slug` reaches for this request (see the module comment). */
export async function readableSkill(app: Pick<App, 'skills' | 'access'>, request: FastifyRequest, slug: string): Promise<Skill> {
  const scope = request.scope?.structureId;
  const missing = () => notFound(`skill ${slug} not found`);
  if (scope !== undefined) {
    const skill = await app.skills.get(slug, scope);
    if (!skill) throw missing();
    return skill;
  }
  const instance = await app.skills.get(slug);
  if (instance) return instance;
  const mine = app.skills.structuresWith(slug).filter((structureId) => canRead(app, request, structureId));
  if (mine.length > 1) {
    throw invalid(`${mine.length} of your structures have a skill ${slug}: name the one you mean with structure_id`, [
      { path: 'querystring.structure_id', message: 'is required when several of your structures have this slug' },
    ]);
  }
  const skill = mine[0] !== undefined ? await app.skills.get(slug, mine[0]) : undefined;
  if (!skill) throw missing();
  return skill;
}

/** The identity (slug and owning scope) of a skill record. */
export function keyOfSkill(skill: Skill): SkillKey {
  const structureId = skill.frontmatter.structure_id;
  return structureId === undefined ? { slug: skill.slug } : { slug: skill.slug, structureId };
}

function canRead(app: Pick<App, 'access'>, request: FastifyRequest, structureId: string): boolean {
  try {
    app.access.authorize(request.principal!, 'read', structureId);
    return true;
  } catch (error) {
    if (isOrgError(error)) return false;
    throw error;
  }
}
