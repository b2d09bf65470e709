/**
 * A skills folder that cannot be watched (the system's limit of watches used up) does
 * not stop the library: it loads and serves, and the operator is told that edits made
 * outside org wait for the next start.
 */
import { mkdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSkillStore, type SkillStore } from './store.js';
import { tempHome, writeSkillFile, type TempHome } from '../../../test/helpers/skills.js';

// chokidar reports a watch it cannot set up as an `error` event, once the store has loaded.
vi.mock('./watch.js', () => ({
  watchSkills: (options: { onError(error: unknown): void }) => {
    options.onError(Object.assign(new Error('ENOSPC: System limit for number of file watchers reached, watch'), { code: 'ENOSPC' }));
    return { ready: Promise.resolve(), flush: () => undefined, close: () => Promise.resolve() };
  },
}));

let home: TempHome;
let store: SkillStore | undefined;

beforeEach(async () => {
  home = await tempHome();
});
afterEach(async () => {
  await store?.close();
  await home.cleanup();
});

describe('a skills folder that cannot be watched', () => {
  it('still loads and serves the library, and says so in the log', async () => {
    await mkdir(home.root, { recursive: true });
    await writeSkillFile(home.root, 'chase-invoices', 'Chase invoices');
    const logged: { level: string; message: string; fields: Record<string, unknown> | undefined }[] = [];
    store = await createSkillStore({
      root: home.root,
      stateDir: home.stateDir,
      synonyms: false,
      watch: true,
      log: (level, message, fields) => logged.push({ level, message, fields }),
    });
    expect(store.list().map((entry) => entry.slug)).toEqual(['chase-invoices']);
    const warning = logged.find((entry) => entry.message.startsWith('the skills folder cannot be watched'));
    expect(warning?.level).toBe('warn');
    expect(JSON.stringify(warning?.fields)).toContain('ENOSPC');
  });
});
