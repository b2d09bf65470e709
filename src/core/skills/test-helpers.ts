/**
 * Helpers shared by the skill tests: temporary homes and skill file text. Not part of
 * the public API (not exported from `index.ts`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary `<home>` with `skills/` and `.org/` paths, and its cleanup. */
export interface TempHome {
  home: string;
  root: string;
  stateDir: string;
  cleanup(): Promise<void>;
}

/** Creates a temporary home folder (the skills folder is created by the store). */
export async function tempHome(prefix = 'org-skills-'): Promise<TempHome> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  return {
    home,
    root: join(home, 'skills'),
    stateDir: join(home, '.org'),
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}

/** Minimal valid front matter with overrides. */
export function frontmatter(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'skill',
    name: 'Chase overdue invoices',
    category: 'finance',
    difficulty: 'low',
    tags: ['invoice', 'overdue'],
    status: 'complete',
    summary: 'Follow up on unpaid invoices.',
    learned_by: 'system',
    learned_at: '2025-01-01T00:00:00.000Z',
    tool_url: null,
    ...overrides,
  };
}

/** The text of a skill file written by hand (YAML lines as given). */
export function skillText(yamlLines: string[], body = '## [one] Step 1: Do it\n\nText.\n'): string {
  return `---\n${yamlLines.join('\n')}\n---\n${body}`;
}

/** Writes a simple valid skill file directly (bypassing the store). */
export async function writeSkillFile(root: string, slug: string, name: string, extra: string[] = []): Promise<void> {
  await writeFile(
    join(root, `${slug}.md`),
    skillText(['type: skill', `name: ${JSON.stringify(name)}`, 'status: complete', ...extra], `${name} body.\n`),
  );
}

/** Polls `check` until it returns true or `timeoutMs` passes; resolves to the elapsed ms or rejects. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 1000, what = 'condition'): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
