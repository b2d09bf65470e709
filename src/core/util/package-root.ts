/**
 * Where the org package lives (the folder of its package.json, `templates/`, `skills/`
 * and `dist/`), found by walking up from a module's own location. Modules run from
 * `src/` (tests), `dist/` (tsc's output) and `dist/bundle/` (the bundled CLI that
 * `bin/org.js` starts), each at another depth, so no fixed relative path fits them all.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above `moduleUrl`'s whose package.json is the org package's. */
export function packageRoot(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (isOrgPackage(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no org package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
}

function isOrgPackage(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'org';
  } catch {
    return false;
  }
}
