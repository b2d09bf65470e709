/**
 * The skill library (API.md §4): markdown files with YAML front matter in
 * `<home>/skills/`, parsed and validated tolerantly, kept in a catalog and its MiniSearch
 * index that follow editor and git edits (chokidar), soft-deleted into `.deleted/`, optionally
 * committed with git. Start with {@link createSkillStore}.
 */
export * from './types.js';
export * from './slug.js';
export * from './frontmatter.js';
export * from './steps.js';
export * from './file-format.js';
export { checkSkillText, checkSteps, type SkillCheck, type SkillIssue } from './check.js';
export { lineOfMember } from './front-matter-source.js';
export * from './entry.js';
export * from './events.js';
export * from './options.js';
export * from './store.js';
export { whileLoading } from './opening.js';
export * from './git.js';
export * from './trash.js';
export * from './version.js';
export * from './observed.js';
export { MAX_BODY_BYTES, type UpsertInput, type UpsertResult, type ScopeOptions, type WritePrecondition } from './writes.js';
export { INDEX_FORMAT, snapshotPath } from './snapshot.js';
export { isSkillFileName, type LoadReport } from './load.js';
export * as search from './search/index.js';
export type { SearchDocument, SkillIndex, SkillSearchOptions, SearchTuning, SynonymSource, SearchExplanation, ExplainedCandidate, ExplainedWord } from './search/index.js';
export type { SkillGap, GapQuery, SearchLogEntry } from './search/gap-log.js';
export * from './sections.js';
export * from './resources.js';
export * as agentSkills from './agent-skills/index.js';
export * from './transfer.js';
export * from './triggers.js';
export { BUNDLED_MANIFEST, listShippedSkills, seedBundledSkills, shippedSkills, writeBundledManifest, type BundledSkill, type SeedResult } from './bundled.js';
export { syncSkills, type SkillSyncOptions, type SkillWakeups } from './remote-sync.js';
export { createSkillRemote, PublishRefused, type SkillRemote, type SkillRemoteOptions, type PullResult } from './remote.js';
export { currentSkillText, listSkillVersions, MAX_VERSION_BYTES, readSkillVersion, skillCommits, type ReadVersion } from './versions.js';
export type { SkillKey } from './skill-key.js';
