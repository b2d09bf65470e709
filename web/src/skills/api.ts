/** Skill library calls of the Skills Editor, scoped to the structure. */
import type { Api } from '../api/client';
import type { DeletedSkill, SearchExplanation, SearchMatch, Skill, SkillEntry, SkillGap, SkillProblem, SkillVersionList, SkillVersionText } from '../api/types';

const base = '/api/org/knowledge';
const slugPath = (slug: string) => `${base}/skills/${encodeURIComponent(slug)}`;

/** Skill calls bound to a structure. */
export function skillsApi(api: Api, structureId: string) {
  return {
    list: (query: { status?: string; category?: string }, signal?: AbortSignal) =>
      api.get<{ skills: SkillEntry[] }>(`${base}/skills`, { query: { structure_id: structureId, ...query }, ...(signal ? { signal } : {}) }).then((body) => body.skills),
    /** The structure's own skill of the slug, else the instance skill. */
    get: (slug: string, signal?: AbortSignal) => api.get<Skill>(slugPath(slug), { query: { structure_id: structureId }, ...(signal ? { signal } : {}) }),
    /** The skill's versions, newest first (git commits of its file, and the texts updates kept that git does not hold). */
    versions: (slug: string, signal?: AbortSignal) => api.get<SkillVersionList>(`${slugPath(slug)}/versions`, { query: { structure_id: structureId }, ...(signal ? { signal } : {}) }),
    /** One version's file, with the current file and its ETag. */
    version: (slug: string, version: string, signal?: AbortSignal) =>
      api.get<SkillVersionText>(`${slugPath(slug)}/versions/${encodeURIComponent(version)}`, { query: { structure_id: structureId }, ...(signal ? { signal } : {}) }),
    /** Writes a version back as the next one, only while the skill is still the version `etag` names (412 otherwise). */
    restoreVersion: (slug: string, version: string, etag: string) =>
      api.post<Skill>(`${slugPath(slug)}/versions/${encodeURIComponent(version)}/restore`, undefined, { query: { structure_id: structureId }, headers: { 'if-match': etag } }),
    /** Copies an instance skill into the structure as its own skill (which its operators may change). */
    fork: (slug: string) => api.post<Skill>(`${slugPath(slug)}/fork`, { structure_id: structureId }),
    save: (slug: string, frontmatter: Record<string, unknown>, body: string) => api.post<Skill>(`${base}/skills`, { structure_id: structureId, slug, frontmatter, body }),
    /** Creates a skill, never replacing one: 409 `already_exists` when the slug is taken. */
    create: (slug: string, frontmatter: Record<string, unknown>, body: string) =>
      api.post<Skill>(`${base}/skills`, { structure_id: structureId, slug, frontmatter, body }, { headers: { 'if-none-match': '*' } }),
    /** The skill gap report of the structure: requests that matched nothing or weakly (operators and owners). */
    gaps: (signal?: AbortSignal) => api.get<{ gaps: SkillGap[] }>(`${base}/gaps`, { query: { structure_id: structureId }, ...(signal ? { signal } : {}) }).then((body) => body.gaps),
    /** Skill files that do not load, with file, line and message. */
    problems: (signal?: AbortSignal) =>
      api.get<{ problems: SkillProblem[] }>(`${base}/problems`, { query: { structure_id: structureId }, ...(signal ? { signal } : {}) }).then((body) => body.problems),
    remove: (slug: string) => api.del(slugPath(slug), { query: { structure_id: structureId } }),
    restore: (slug: string) => api.post<Skill>(`${slugPath(slug)}/restore`, undefined, { query: { structure_id: structureId } }),
    deleted: (signal?: AbortSignal) => api.get<{ skills: DeletedSkill[] }>(`${base}/deleted`, { query: { structure_id: structureId }, ...(signal ? { signal } : {}) }).then((body) => body.skills),
    search: (query: string, limit: number) => api.post<{ matches: SearchMatch[] }>(`${base}/search`, { structure_id: structureId, query, limit }).then((body) => body.matches),
    /** The same search with `explain`: every candidate, kept or cut, and why (`why`: skills to explain whatever their rank). */
    explain: (query: string, limit: number, why: string[]) =>
      api.post<{ matches: SearchMatch[]; explain: SearchExplanation }>(`${base}/search`, {
        structure_id: structureId,
        query,
        limit,
        explain: true,
        ...(why.length > 0 ? { why } : {}),
      }),
  };
}

/** The skill calls' type. */
export type SkillsApi = ReturnType<typeof skillsApi>;

/** Approves a draft: the same skill saved with status complete (unknown front matter kept). */
export async function approve(skills: SkillsApi, slug: string): Promise<Skill> {
  const skill = await skills.get(slug);
  return skills.save(slug, { ...skill.frontmatter, status: 'complete' }, skill.body);
}
