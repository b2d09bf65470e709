/** Calls about the skill library: listing, reading, writing, deleting and restoring skills. */
import { callOn, enc, transportOf, type ClientBase } from '../base.js';
import { exchangeJson, type RequestOptions } from '../http.js';
import type { DeletedSkill, Skill, SkillCommit, SkillListEntry, SkillListQuery, SkillProblem, SkillVersionList, SkillVersionText, SkillWrite } from '../types.js';

export const skillCalls = {
  /** Skills visible to a structure (a node key: its own structure). */
  listSkills(query: SkillListQuery = {}, request?: RequestOptions): Promise<{ skills: SkillListEntry[] }> {
    return callOn(
      this,
      '/api/org/knowledge/skills',
      {
        query: {
          structure_id: query.structure_id,
          status: query.status?.length ? query.status.join(',') : undefined,
          category: query.category,
          tag: query.tag,
        },
      },
      request,
    );
  },

  /**
   * One skill of any status, with its steps: with `structureId`, that structure's own
   * skill of the slug, else the instance skill; without, the instance skill, else the one
   * of the caller's structures that has it.
   */
  getSkill(slug: string, structureId?: string, request?: RequestOptions): Promise<Skill> {
    return callOn(this, `/api/org/knowledge/skills/${enc(slug)}`, { query: { structure_id: structureId } }, request);
  },

  /** Git commits of a skill's file (the skill found as `getSkill` finds it). */
  skillHistory(slug: string, structureId?: string, request?: RequestOptions): Promise<{ commits: SkillCommit[] }> {
    return callOn(this, `/api/org/knowledge/skills/${enc(slug)}/history`, { query: { structure_id: structureId } }, request);
  },

  /** The versions of a skill, newest first: git commits of its file, and the copies updates kept that git does not hold. */
  skillVersions(slug: string, structureId?: string, request?: RequestOptions): Promise<SkillVersionList> {
    return callOn(this, `/api/org/knowledge/skills/${enc(slug)}/versions`, { query: { structure_id: structureId } }, request);
  },

  /** One version of a skill (a listed id, or a unique commit prefix), with the current file and its ETag. */
  skillVersion(slug: string, version: string, structureId?: string, request?: RequestOptions): Promise<SkillVersionText> {
    return callOn(this, `/api/org/knowledge/skills/${enc(slug)}/versions/${enc(version)}`, { query: { structure_id: structureId } }, request);
  },

  /**
   * Writes a version back as the skill's next version, only while the skill is still the
   * version `etag` names (412 `precondition_failed` otherwise, and nothing is written).
   * Without `structureId`: an instance skill (the instance administrator).
   */
  restoreSkillVersion(slug: string, version: string, structureId: string | undefined, etag: string, request?: RequestOptions): Promise<Skill> {
    return callOn(this, `/api/org/knowledge/skills/${enc(slug)}/versions/${enc(version)}/restore`, { method: 'POST', query: { structure_id: structureId }, headers: { 'if-match': etag } }, request);
  },

  /** Copies an instance skill into a structure as its own skill (`as`: the copy's slug, default the original's). */
  forkSkill(slug: string, structureId: string, as?: string, request?: RequestOptions): Promise<Skill> {
    return callOn(this, `/api/org/knowledge/skills/${enc(slug)}/fork`, { method: 'POST', body: { structure_id: structureId, ...(as ? { slug: as } : {}) } }, request);
  },

  /** Creates or updates a skill; `created` tells which. */
  async saveSkill(write: SkillWrite, request?: RequestOptions): Promise<{ skill: Skill; created: boolean }> {
    const { status, body } = await exchangeJson<Skill>(transportOf(this), '/api/org/knowledge/skills', {
      method: 'POST',
      body: write,
      ...(request?.signal ? { signal: request.signal } : {}),
    });
    return { skill: body, created: status === 201 };
  },

  /**
   * Creates a skill, never replacing one: sent with `If-None-Match: *`, so a slug that is
   * taken (even by a skill created since the caller last looked) fails with 409
   * `already_exists` and the stored skill is untouched.
   */
  async createSkill(write: SkillWrite, request?: RequestOptions): Promise<Skill> {
    const { body } = await exchangeJson<Skill>(transportOf(this), '/api/org/knowledge/skills', {
      method: 'POST',
      body: write,
      headers: { 'if-none-match': '*' },
      ...(request?.signal ? { signal: request.signal } : {}),
    });
    return body;
  },

  /** Deletes a structure's own skill (restorable); without `structureId`, an instance skill (the instance administrator). */
  deleteSkill(slug: string, structureId: string | undefined, request?: RequestOptions): Promise<void> {
    return callOn(this, `/api/org/knowledge/skills/${enc(slug)}`, { method: 'DELETE', query: { structure_id: structureId } }, request);
  },

  /** Restores the newest deleted version of a structure's own skill; without `structureId`, of an instance skill (the instance administrator). */
  restoreSkill(slug: string, structureId: string | undefined, request?: RequestOptions): Promise<Skill> {
    return callOn(this, `/api/org/knowledge/skills/${enc(slug)}/restore`, { method: 'POST', query: { structure_id: structureId } }, request);
  },

  /** Deleted skills that can be restored. */
  deletedSkills(structureId?: string, request?: RequestOptions): Promise<{ skills: DeletedSkill[] }> {
    return callOn(this, '/api/org/knowledge/deleted', { query: { structure_id: structureId } }, request);
  },

  /** Skill files the server could not load. */
  skillProblems(request?: RequestOptions): Promise<{ problems: SkillProblem[] }> {
    return callOn(this, '/api/org/knowledge/problems', {}, request);
  },
} satisfies ThisType<ClientBase>;

/** The skill library calls of `OrgClient`. */
export type SkillCalls = typeof skillCalls;
