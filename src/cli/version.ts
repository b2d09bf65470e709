/**
 * The package version, read once from package.json next to the build. Deliberately
 * imports nothing of the app, so `org --version` and `org help` start fast.
 */
import { readFileSync } from 'node:fs';

/** The version of this org package. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
