/** Shapes of the Agent Skills conversion. */

/**
 * One skill folder: its name (the folder name) and its files, keyed by the path inside
 * the folder with `/` separators (`SKILL.md`, `scripts/fetch.sh`, `references/GUIDE.md`).
 */
export interface SkillFolder {
  name: string;
  files: Map<string, Uint8Array>;
}

/** The file every skill folder holds. */
export const SKILL_FILE = 'SKILL.md';

/** A problem found in a skill folder, in words meant for the person importing it. */
export interface FolderProblem {
  /** The folder (or `folder/path`) the problem is about. */
  path: string;
  message: string;
}
