/**
 * A home whose skill library is the package's own skills, as `org serve` seeds a new one
 * (tests of the bundled playbooks run against them).
 */
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChat, type ChatFixture } from './chat.js';
import { REPO_ROOT } from './child.js';

/** A fresh temp folder (named with `prefix`) holding `skills/` with a copy of the package's skills; the caller removes it. */
export async function homeWithPackageSkills(prefix: string): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(home, 'skills'));
  for (const name of await readdir(join(REPO_ROOT, 'skills'))) if (name.endsWith('.md')) await copyFile(join(REPO_ROOT, 'skills', name), join(home, 'skills', name));
  return home;
}

/** A chat fixture (see `startChat`) on such a home; its `close` also removes the home. */
export async function startChatWithPackageSkills(prefix: string): Promise<ChatFixture> {
  const home = await homeWithPackageSkills(prefix);
  const c = await startChat({ home });
  const close = c.close.bind(c);
  return Object.assign(c, {
    close: async () => {
      await close();
      await rm(home, { recursive: true, force: true });
    },
  });
}
