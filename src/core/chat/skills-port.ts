/**
 * The skill library as the chat engine sees it (`ChatSkills`), over the skill store:
 * the chat lookup, skills with their steps' text, and storage of learned drafts.
 */
import { isValidSlug, stepSections, type SkillStore } from '../skills/index.js';
import type { TurnSkill } from '../runtimes/types.js';
import type { ChatSkills, LearnedDraft } from './ports.js';

/** Reduces any proposed slug to a valid one (leaving room for a `-N` suffix). */
export function normalizeSlug(proposed: string): string {
  const slug = proposed
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 58)
    .replace(/-+$/, '');
  return slug.length > 0 ? slug : 'learned-skill';
}

/** Adapts a skill store to the chat engine. */
export function createChatSkills(store: SkillStore): ChatSkills {
  return {
    async search(query, structureId, limit, options = {}) {
      await store.ready();
      // The chat lookup is what the skill gap report is made of: record it (an agent's own
      // searches, `record: false`, are no message a person sent).
      return store.search(query.slice(0, 1000), { structureId, limit, record: options.record ?? true });
    },
    async read(slug, structureId, score = 0): Promise<TurnSkill | undefined> {
      if (!isValidSlug(slug)) return undefined;
      const skill = await store.get(slug, structureId);
      if (!skill) return undefined;
      return {
        slug: skill.slug,
        name: skill.frontmatter.name,
        score,
        status: skill.frontmatter.status,
        tool_url: skill.frontmatter.tool_url,
        summary: skill.frontmatter.summary,
        steps: stepSections(skill.body),
      };
    },
    async readRaw(slug, structureId) {
      if (!isValidSlug(slug)) return undefined;
      const skill = await store.get(slug, structureId);
      if (!skill) return undefined;
      return { slug: skill.slug, frontmatter: { ...skill.frontmatter }, body: skill.body };
    },
    async learnDraft(draft: LearnedDraft) {
      await store.ready();
      const base = normalizeSlug(draft.slug);
      let slug = base;
      // Taken as this structure sees slugs: its own skills and the instance library's
      // (another structure's skills are in another folder, and never looked at).
      const broken = new Set(store.problems({ structureId: draft.structureId }).map((problem) => problem.file));
      const taken = async (candidate: string) =>
        broken.has(`${candidate}.md`) || broken.has(`${draft.structureId}/${candidate}.md`) || (await store.get(candidate, draft.structureId)) !== undefined;
      for (let n = 2; await taken(slug); n++) slug = `${base}-${n}`;
      await store.upsert({
        slug,
        frontmatter: {
          type: 'skill',
          name: draft.name.trim() || slug,
          category: draft.category,
          difficulty: 'medium',
          tags: draft.tags,
          ...(draft.triggers?.length ? { triggers: draft.triggers } : {}),
          status: 'draft',
          summary: draft.summary,
          learned_by: draft.learnedBy ?? 'agent',
          tool_url: null,
          structure_id: draft.structureId,
        },
        body: draft.body,
        structureId: draft.structureId,
        actor: 'agent',
      });
      return slug;
    },
  };
}
