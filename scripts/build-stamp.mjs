// What the build is made from, as one fingerprint: the build writes it to
// dist/.build-stamp when it ends, and `prepare` (which npm runs on `npm install`,
// `npm link` and `npx` of the checkout) builds only when the sources differ from it, so
// the second of those commands starts at once from what the first built.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Folders whose files the build reads (skipping built output and installed packages). */
export const SOURCE_DIRS = ['src', 'web', 'scripts', 'skills'];
/** Single files the build reads. */
export const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
/** What a complete build leaves: without them the stamp is not believed. */
export const BUILD_OUTPUTS = ['dist/bundle/main.js', 'dist/cli/main.js', 'dist/web/index.html', 'dist/bundled-skills.json'];
/** Where the stamp is kept. */
export const STAMP = 'dist/.build-stamp';

const SKIP = new Set(['node_modules', 'dist', '.vite']);

function walk(dir, files) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, files);
    else if (entry.isFile()) files.push(path);
  }
}

/** The fingerprint of the sources below `root`: a SHA-256 over each source file's path and bytes. */
export function fingerprint(root) {
  const files = [];
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir), files);
  for (const file of SOURCE_FILES) if (existsSync(join(root, file))) files.push(join(root, file));
  const hash = createHash('sha256');
  for (const file of files.map((path) => relative(root, path).split('\\').join('/')).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when `root` holds a complete build of exactly its current sources. */
export function isUpToDate(root) {
  if (!BUILD_OUTPUTS.every((file) => existsSync(join(root, file)))) return false;
  try {
    return readFileSync(join(root, STAMP), 'utf8').trim() === fingerprint(root);
  } catch {
    return false;
  }
}
