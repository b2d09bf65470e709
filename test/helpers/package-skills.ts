/**
 * A home whose skill library is the package's own skills, as `org serve` seeds a new one
 * (tests of the bundled playbooks run against them).
 */
import { copyFile, mkdir, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './child.js';

/** A fresh temp folder (named with `prefix`) holding `skills/` with a copy of the package's skills; the caller removes it. */
export async function homeWithPackageSkills(prefix: string): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(home, 'skills'));
  for (const name of await readdir(join(REPO_ROOT, 'skills'))) if (name.endsWith('.md')) await copyFile(join(REPO_ROOT, 'skills', name), join(home, 'skills', name));
  return home;
}
