/**
 * Helpers shared by the skill tests: temporary homes, skill file text, and waiting for
 * the store's change events. Test code only: it lives outside `src/` so it never reaches
 * the published build.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SkillChangeEvent, SkillStore } from '../../src/core/skills/index.js';

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

/**
 * Resolves with the first change event of `store` that `match` accepts (it may also look
 * at the store's state). Call it before causing the change, then await it: this waits on
 * the change itself, never on a clock (`failAfterMs` only bounds a failure, to say what
 * was awaited).
 *
 * @example
 * const added = nextChange(store, (event) => event.type === 'upsert' && event.slug === 'otter');
 * await writeFile(join(root, 'otter.md'), text);
 * await added;
 */
export function nextChange(
  store: Pick<SkillStore, 'subscribe'>,
  match: (event: SkillChangeEvent) => boolean,
  what = 'the skill change',
  failAfterMs = 20_000,
): Promise<SkillChangeEvent> {
  return new Promise((resolve, reject) => {
    const seen: string[] = [];
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`${what} did not happen; changes seen: ${seen.join(', ') || 'none'}`));
    }, failAfterMs);
    const unsubscribe = store.subscribe((event) => {
      seen.push(`${event.type}:${'slug' in event ? event.slug : event.file}:${event.source}`);
      if (!match(event)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(event);
    });
  });
}
