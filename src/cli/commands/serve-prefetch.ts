/**
 * The first thing `org serve` does, before it loads the server's modules (a few hundred
 * milliseconds of compiling on the main thread): start taking the signatures of the skill
 * files on another thread, for the library load that follows the listen. Loaded on its
 * own, small: it must not wait for the modules it overlaps with.
 */
import { homePaths, resolveConfig } from '../../core/config.js';
import { prefetchLibrary, type LibraryPrefetch } from '../../core/skills/prefetch.js';
import { packageRoot } from '../../core/util/package-root.js';
import type { ServeCommandFlags } from './serve.js';

/**
 * Starts the prefetch of the home's skills folder; undefined when the flags are invalid
 * (the start reports it) or the library comes from a git remote (its clone comes first).
 */
export function prefetchForServe(flags: ServeCommandFlags, env: NodeJS.ProcessEnv = process.env): LibraryPrefetch | undefined {
  let config: ReturnType<typeof resolveConfig>;
  try {
    config = resolveConfig(flags, env, process.cwd(), packageRoot(import.meta.url));
  } catch {
    return undefined;
  }
  if (config.skillsRemote) return undefined;
  return prefetchLibrary(homePaths(config.home).skills);
}
