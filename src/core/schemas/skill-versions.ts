/**
 * Versions of a skill (the Skills Editor's View / Diff / Restore): the git commits of its
 * file when the library is in a git work tree, and the texts that updates through org
 * replaced and kept in the deleted area (`.deleted/<slug>--<time>.replaced.md`) that git
 * does not hold.
 */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from './common.js';
import { SkillSchema } from './skills.js';

/** Where a version comes from. */
export const SKILL_VERSION_SOURCES = ['git', 'kept'] as const;

/**
 * A version id in a path: a git commit (7 to 40 hexadecimal digits, a unique prefix of a
 * commit of the skill's file) or a kept copy (`kept-<time>[-n]`, as listed).
 */
export const SkillVersionId = Type.String({
  pattern: '^(?:[0-9a-fA-F]{7,40}|kept-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}\\.[0-9]{3}Z(?:-[0-9]{1,6})?)$',
  maxLength: 64,
  description: 'a commit of the skill’s file (7–40 hex digits, a unique prefix) or a kept copy (kept-<time>), as GET …/versions lists them',
});

/** One version of a skill, newest first in a listing. */
export const SkillVersionSchema = Type.Object(
  {
    id: Type.String({ description: 'the full commit hash, or kept-<time> for a kept copy' }),
    source: StringEnum(SKILL_VERSION_SOURCES, { description: 'git: a commit of the skill’s file; kept: the text an update replaced, kept in the deleted area' }),
    date: Type.String({ description: 'ISO 8601: the commit’s author date; for a kept copy, when an update replaced it' }),
    author: Nullable(Type.String({ description: 'the commit’s author (`Name <e-mail>`); null for a kept copy' })),
    message: Nullable(Type.String({ description: 'the commit’s subject; null for a kept copy' })),
  },
  { title: 'SkillVersion' },
);
export type SkillVersion = Static<typeof SkillVersionSchema>;

/** `GET /knowledge/skills/{slug}/versions`. */
export const SkillVersionListSchema = Type.Object(
  {
    git: Type.Boolean({ description: 'true when the skill library is in a git work tree (commits are listed); false: only kept copies are' }),
    versions: Type.Array(SkillVersionSchema),
  },
  { title: 'SkillVersionList' },
);
export type SkillVersionList = Static<typeof SkillVersionListSchema>;

/** `GET /knowledge/skills/{slug}/versions/{version}`: one version's file, and the current one to compare and restore against. */
export const SkillVersionTextSchema = Type.Object(
  {
    version: SkillVersionSchema,
    text: Type.String({ description: 'the skill file as this version has it (front matter and body)' }),
    skill: Type.Optional(SkillSchema),
    problem: Type.Optional(Type.String({ description: 'why this version does not parse as a skill (it can be viewed, not restored)' })),
    current: Type.Object(
      {
        text: Type.String({ description: 'the skill file as it is now' }),
        etag: Type.String({ description: 'the current version’s ETag, for If-Match on a restore' }),
      },
      { description: 'the current version, to compare with' },
    ),
  },
  { title: 'SkillVersionText' },
);
export type SkillVersionText = Static<typeof SkillVersionTextSchema>;

/** Headers of a version restore: `If-Match` with the current ETag is required. */
export const RestoreVersionHeadersSchema = Type.Object({
  'if-match': Type.Optional(
    Type.String({ maxLength: 1024, description: 'the ETag of the current version (required): a skill changed since is not overwritten (412)' }),
  ),
});
