/**
 * Making a home ready for a process, before anything reads, writes or watches it: its
 * two roots are guarded against links (nothing below `skills/` or `.org/` is ever
 * reached through a symbolic link), its folders exist, and the temp files of atomic
 * writes that a killed process left behind are removed, so a crash leaves no litter in
 * the artifact shelves or beside any state file (those of the git-tracked skills folder
 * go when the skill library loads, before any skill is read (the watcher never
 * reports them): see the store's `sweepTemps` option).
 */
import { keepListedArtifacts } from './chat/artifacts.js';
import type { HomePaths } from './config.js';
import { guardRoot, isPrivateDir, mkdirSafe, sweepTemps, tightenTree } from './storage/index.js';
import type { Log } from './util/log.js';

/** What {@link prepareHome} removed, relative to the home. */
export interface PreparedHome {
  removedTemps: string[];
}

/**
 * Guards the roots, creates the layout and sweeps leftover temp files (reported to
 * `log` at `warn`, since each one is a write a crash cut short).
 */
export async function prepareHome(paths: HomePaths, log: Log): Promise<PreparedHome> {
  await guardRoot(paths.skills);
  // The state folder of a home made by an earlier version (not 0700 yet) is made private
  // once, every file and folder in it; from then on everything is created private.
  const tightened = (await isPrivateDir(paths.state)) ? 0 : await tightenTree(paths.state).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  });
  if (tightened > 0) log('info', 'made the state folder private (files 0600, folders 0700)', { changed: tightened });
  await guardRoot(paths.state, { private: true });
  await mkdirSafe(paths.structures);
  await mkdirSafe(paths.outbox);
  // The skills folder's temps are removed by the skill load (its `sweepTemps` option),
  // from the listing it reads anyway: listing a folder of 50,000 skills here would
  // delay the server's listen by a few hundred milliseconds.
  const removedTemps = (await sweepTemps(paths.state, { recursive: true, keep: keepListedArtifacts() })).map((file) => `.org/${file}`);
  if (removedTemps.length > 0) {
    log('warn', 'removed temp files of writes cut short by an earlier stop', { files: removedTemps.slice(0, 20), count: removedTemps.length });
  }
  return { removedTemps };
}
