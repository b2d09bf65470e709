/**
 * The package version, read once from package.json next to the build. Deliberately
 * imports nothing of the app, so `org --version` and `org help` start fast.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/util/package-root.js';

/** The version of this org package. */
export const VERSION: string = (JSON.parse(readFileSync(join(packageRoot(import.meta.url), 'package.json'), 'utf8')) as { version: string }).version;
