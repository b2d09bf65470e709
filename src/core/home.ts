/**
 * Making a home ready for a process, before anything reads, writes or watches it: its
 * two roots are guarded against links (nothing below `skills/` or `.org/` is ever
 * reached through a symbolic link), its folders exist, and the temp files of atomic
 * writes that a killed process left behind are removed, so a crash leaves no litter in
 * the git-tracked skills folder, in the artifact shelves or beside any state file.
 */
import { keepListedArtifacts } from './chat/artifacts.js';
import type { HomePaths } from './config.js';
import { guardRoot, mkdirSafe, sweepTemps } from './storage/index.js';
import type { Log } from './util/log.js';

/** A skill file's temp: `<slug>.md.<n>` (a user's other files in `skills/` are left alone). */
const SKILL_TEMP = /^[a-z0-9]+(?:-[a-z0-9]+)*\.md\.\d{1,10}$/;

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
  await guardRoot(paths.state);
  await mkdirSafe(paths.structures);
  await mkdirSafe(paths.outbox);
  const removedTemps = [
    ...(await sweepTemps(paths.skills, { match: SKILL_TEMP })).map((file) => `skills/${file}`),
    ...(await sweepTemps(paths.state, { recursive: true, keep: keepListedArtifacts() })).map((file) => `.org/${file}`),
  ];
  if (removedTemps.length > 0) {
    log('warn', 'removed temp files of writes cut short by an earlier stop', { files: removedTemps.slice(0, 20), count: removedTemps.length });
  }
  return { removedTemps };
}
