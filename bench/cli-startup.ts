/**
 * Start-up of the `org` command: how long `org --version`, `org help` and
 * `org skills --help` take as separate processes, against `node -e 0` measured in the
 * same run (the floor no CLI can beat) and against loading the whole app the way
 * `org --version` used to (the baseline the lazy command loading replaced).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'org.js');
const APP = join(ROOT, 'dist', 'app.js');

/** Wall time of one process, in ms. */
function once(args: string[]): number {
  const started = process.hrtime.bigint();
  execFileSync(process.execPath, args, { stdio: 'ignore', cwd: ROOT });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? 0;
}

/** Runs the measurements interleaved, so a busy machine slows every case alike. */
export async function benchCliStartup(rounds = 15): Promise<Record<string, number>> {
  const cases: Record<string, string[]> = {
    node: ['-e', '0'],
    version: [BIN, '--version'],
    help: [BIN, 'help'],
    skillsHelp: [BIN, 'skills', '--help'],
    wholeApp: ['--input-type=module', '-e', `await import(${JSON.stringify(`file://${APP}`)})`],
  };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (const args of Object.values(cases)) once(args); // warm the file cache
  for (let round = 0; round < rounds; round++) {
    for (const [name, args] of Object.entries(cases)) samples[name]!.push(once(args));
  }
  const floor = median(samples.node!);
  const figures: Record<string, number> = { 'cli-startup.nodeMs': Math.round(floor) };
  for (const name of ['version', 'help', 'skillsHelp', 'wholeApp']) {
    const ms = median(samples[name]!);
    figures[`cli-startup.${name}Ms`] = Math.round(ms);
    figures[`cli-startup.${name}OverNodeMs`] = Math.round(ms - floor);
  }
  figures['cli-startup.versionVsWholeAppRatio'] = Number((median(samples.version!) / median(samples.wholeApp!)).toFixed(3));
  return figures;
}
