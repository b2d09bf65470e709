/** Schemas of the skill library routes (API.md §4). */
import { Type } from 'typebox';
import { Slug, Timestamp, Uuid } from './common.js';

const Frontmatter = Type.Object(
  {
    type: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    difficulty: Type.Optional(Type.String()),
    tags: Type.Optional(Type.Array(Type.Unknown())),
    status: Type.Optional(Type.String()),
    summary: Type.Optional(Type.String()),
    learned_by: Type.Optional(Type.String()),
    learned_at: Type.Optional(Type.String()),
    tool_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    structure_id: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: 'YAML front matter; unknown members are kept' },
);

/** A skill list entry. */
export const SkillEntrySchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  category: Type.String(),
  difficulty: Type.String(),
  tags: Type.Array(Type.String()),
  summary: Type.String(),
  status: Type.String(),
  learned_by: Type.String(),
  learned_at: Type.String(),
  tool_url: Type.Union([Type.String(), Type.Null()]),
  structure_id: Type.Optional(Type.String()),
});

/** A full skill. */
export const SkillSchema = Type.Object({
  slug: Type.String(),
  frontmatter: Type.Object({}, { additionalProperties: true }),
  body: Type.String(),
  steps: Type.Array(Type.Object({ id: Type.String(), n: Type.Integer(), title: Type.String() })),
});

/** Body of POST /knowledge/skills. */
export const UpsertSkillBody = Type.Object({
  structure_id: Uuid,
  slug: Slug,
  frontmatter: Frontmatter,
  body: Type.String(),
});

/** Query of GET /knowledge/skills. */
export const ListSkillsQuery = Type.Object({
  structure_id: Type.Optional(Uuid),
  status: Type.Optional(Type.String({ pattern: '^(draft|complete|deprecated)(,(draft|complete|deprecated))*$', description: 'comma list; default complete,draft' })),
  category: Type.Optional(Type.String({ maxLength: 100 })),
  tag: Type.Optional(Type.String({ maxLength: 100 })),
});

/** Body of POST /knowledge/search. */
export const SearchBody = Type.Object({
  structure_id: Type.Optional(Uuid),
  query: Type.String({ minLength: 1, maxLength: 1000 }),
  limit: Type.Integer({ minimum: 1, maximum: 50, default: 5 }),
});

/** A search match. */
export const SearchMatchSchema = Type.Object({ slug: Type.String(), score: Type.Number(), reason: Type.String() });

/** A deleted skill. */
export const DeletedSkillSchema = Type.Object({ slug: Type.String(), name: Type.String(), deleted_at: Timestamp });

/** A commit touching a skill file. */
export const SkillCommitSchema = Type.Object({ commit: Type.String(), author: Type.String(), date: Type.String(), message: Type.String() });

/** `?structure_id=` of delete and restore. */
export const ScopeQuery = Type.Object({ structure_id: Uuid });
