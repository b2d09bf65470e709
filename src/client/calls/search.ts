/** Calls that search the skill library and report what it lacks. */
import { callOn, type ClientBase } from '../base.js';
import type { RequestOptions } from '../http.js';
import type { SearchExplanation, SearchMatch, SkillGap } from '../types.js';

export const searchCalls = {
  /** What an agent of the structure would match; with `explain` (or `why`: slugs to account for), why each candidate was kept or cut. */
  searchSkills(
    query: string,
    options: { structure_id?: string; limit?: number; explain?: boolean; why?: string[] } = {},
    request?: RequestOptions,
  ): Promise<{ matches: SearchMatch[]; explain?: SearchExplanation }> {
    return callOn(
      this,
      '/api/org/knowledge/search',
      {
        method: 'POST',
        body: {
          query,
          ...(options.structure_id ? { structure_id: options.structure_id } : {}),
          ...(options.limit ? { limit: options.limit } : {}),
          ...(options.explain ? { explain: true } : {}),
          ...(options.why?.length ? { why: options.why } : {}),
        },
      },
      request,
    );
  },

  /** Recent chat messages that matched no skill or only weakly, grouped, most frequent first (operator). */
  skillGaps(options: { structure_id?: string; since?: string; limit?: number } = {}, request?: RequestOptions): Promise<{ gaps: SkillGap[] }> {
    return callOn(
      this,
      '/api/org/knowledge/gaps',
      { query: { structure_id: options.structure_id, since: options.since, ...(options.limit ? { limit: String(options.limit) } : {}) } },
      request,
    );
  },
} satisfies ThisType<ClientBase>;

/** The search calls of `OrgClient`. */
export type SearchCalls = typeof searchCalls;
