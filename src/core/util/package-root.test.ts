import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageRoot } from './package-root.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'org-package-root-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('packageRoot', () => {
  it('finds the org package from modules at any depth, past package.json files of other packages', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'org', version: '1.0.0' }));
    await mkdir(join(dir, 'dist', 'bundle'), { recursive: true });
    await mkdir(join(dir, 'dist', 'server', 'routes'), { recursive: true });
    await writeFile(join(dir, 'dist', 'server', 'package.json'), JSON.stringify({ name: 'other' }));
    for (const module of ['dist/app.js', 'dist/bundle/chunk-1.js', 'dist/server/routes/web.js']) {
      expect(packageRoot(pathToFileURL(join(dir, module)).href)).toBe(dir);
    }
  });

  it('is this repository from its own source', () => {
    expect(packageRoot(import.meta.url)).toBe(join(import.meta.dirname, '..', '..', '..'));
  });

  it('says so when no org package is above the module', () => {
    expect(() => packageRoot(pathToFileURL(join(dir, 'a', 'b.js')).href)).toThrow(/no org package.json above/);
  });
});
