/**
 * What the chat engine needs from the rest of the system, as narrow interfaces wired
 * in app.ts: the skill library and the workspace log.
 */
import type { TurnSkill } from '../runtimes/types.js';

/** A search match. */
export interface SkillMatch {
  slug: string;
  score: number;
  reason: string;
}

/** A draft learned from a turn. */
export interface LearnedDraft {
  structureId: string;
  slug: string;
  name: string;
  body: string;
  summary: string;
  tags: string[];
  category: string;
}

/** The skill library as the chat engine uses it. */
export interface ChatSkills {
  /** The chat lookup: complete skills visible to the structure, above the relevance floor. */
  search(query: string, structureId: string, limit: number): Promise<SkillMatch[]>;
  /** A skill visible to the structure (any status), with its steps' text. */
  read(slug: string, structureId: string, score?: number): Promise<TurnSkill | undefined>;
  /** A skill's full record, for the `read_skill` tool. */
  readRaw(slug: string, structureId: string): Promise<{ slug: string; frontmatter: Record<string, unknown>; body: string } | undefined>;
  /** Stores a learned draft; a taken slug gets a -2, -3 … suffix. Returns the stored slug. */
  learnDraft(draft: LearnedDraft): Promise<string>;
}
