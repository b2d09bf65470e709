/** The files the CLI scaffolds from: the package's `templates/skill.md`. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../core/util/package-root.js';

/** Root of the org package (holds `templates/`). */
export const PACKAGE_DIR = packageRoot(import.meta.url);

/** Path of the skill template shipped with the package. */
export const SKILL_TEMPLATE = join(PACKAGE_DIR, 'templates', 'skill.md');

/** Name of the local copy of the template that `org init` writes into `skills/` (ignored by the loader). */
export const LOCAL_TEMPLATE_NAME = '.template.md';

/**
 * The skill template text: the home's `skills/.template.md` when there is one (a team's
 * own house style), else the package's.
 */
export async function skillTemplate(skillsDir?: string): Promise<string> {
  if (skillsDir) {
    try {
      return await readFile(join(skillsDir, LOCAL_TEMPLATE_NAME), 'utf8');
    } catch {
      // No local template: use the package's.
    }
  }
  return readFile(SKILL_TEMPLATE, 'utf8');
}

/** Fills the template for a slug: its `name` from the slug (`plan-offsite` → `Plan offsite`). */
export function fillTemplate(template: string, slug: string): string {
  const words = slug.replace(/-/g, ' ');
  const name = words.charAt(0).toUpperCase() + words.slice(1);
  return template.replace(/^name:.*$/m, `name: ${name}`);
}
