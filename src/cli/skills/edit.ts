/**
 * Editing a skill in `$EDITOR`: the file itself when the server's home is on this
 * machine (the watcher picks the change up), otherwise a round-trip through the API —
 * fetch, edit a temporary copy, validate, save.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changeScope } from '../skill-target.js';
import type { OrgClient } from '../../client/index.js';
import type { Skill } from '../../client/types.js';
import { invalid } from '../../core/errors.js';
import { locateHome } from '../../core/home-location.js';
import { parseSkillText, serializeSkill } from '../../core/skills/index.js';
import { PACKAGE_DIR } from '../templates.js';
import { lintSkillText, type LintMessage } from './lint.js';

/**
 * The home folder a command means: `--home`, else `ORG_HOME`, else the working folder
 * (`~/.org` when that is the org package, as for `org serve`).
 */
export function homeOf(home: string | undefined, cwd: string, env: NodeJS.ProcessEnv): string {
  return locateHome(home, env, cwd, PACKAGE_DIR).home;
}

/** `<home>/skills/<slug>.md` when that file exists on this machine. */
export async function localSkillFile(home: string, slug: string): Promise<string | undefined> {
  const file = join(home, 'skills', `${slug}.md`);
  try {
    return (await stat(file)).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** What an edit did. */
export type EditOutcome =
  | { kind: 'local'; file: string; messages: LintMessage[] }
  | { kind: 'unchanged'; slug: string }
  | { kind: 'saved'; skill: Skill };

/** Options of {@link editSkill}. */
export interface EditOptions {
  client: OrgClient;
  /** The home folder to look for a local file in (undefined: always go through the API). */
  home?: string;
  openEditor: (file: string) => Promise<void>;
  /** The structure the edit is for: its own skill of the slug is edited, else the instance skill (operator rights needed there). */
  structureId: () => Promise<string>;
}

/** Opens the skill in the editor, locally or through the API. */
export async function editSkill(slug: string, options: EditOptions): Promise<EditOutcome> {
  const local = options.home ? await localSkillFile(options.home, slug) : undefined;
  if (local) {
    await options.openEditor(local);
    return { kind: 'local', file: local, messages: lintSkillText(local, await readFile(local, 'utf8')) };
  }
  const skill = await options.client.getSkill(slug, await options.structureId());
  const dir = await mkdtemp(join(tmpdir(), 'org-edit-'));
  const file = join(dir, `${slug}.md`);
  const original = serializeSkill(skill.frontmatter, skill.body);
  await writeFile(file, original);
  await options.openEditor(file);
  const text = await readFile(file, 'utf8');
  if (text === original) {
    await rm(dir, { recursive: true, force: true });
    return { kind: 'unchanged', slug };
  }
  const saved = await saveEditedText(slug, text, file, skill, options);
  await rm(dir, { recursive: true, force: true });
  return { kind: 'saved', skill: saved };
}

/** Validates edited text and saves it; a text that does not parse is kept in `file` for another try. */
async function saveEditedText(slug: string, text: string, file: string, before: Skill, options: EditOptions): Promise<Skill> {
  const parsed = parseSkillText(slug, text, {
    learned_by: before.frontmatter.learned_by,
    learned_at: before.frontmatter.learned_at,
    category: before.frontmatter.category,
    difficulty: before.frontmatter.difficulty,
  });
  if (!parsed.ok) throw invalid(`the edited skill is not valid (${parsed.message}); nothing was saved, your text is in ${file}`);
  const structureId = await changeScope(options.client, before, options.structureId);
  const { structure_id: _scope, ...frontmatter } = parsed.skill.frontmatter;
  const { skill } = await options.client.saveSkill({ ...(structureId !== undefined ? { structure_id: structureId } : {}), slug, frontmatter, body: parsed.skill.body });
  return skill;
}
