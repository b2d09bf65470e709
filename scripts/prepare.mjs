// npm's `prepare` (run by `npm install`, `npm link`, `npm pack` and `npx` of the
// checkout): builds unless dist/ already holds a build of exactly these sources, so a
// second command does not spend most of a minute rebuilding what the first one built.
// `--stamp` (the build's last step) records the sources the build was made from.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprint, isUpToDate, STAMP } from './build-stamp.mjs';

const root = join(import.meta.dirname, '..');

if (process.argv.includes('--stamp')) {
  writeFileSync(join(root, STAMP), `${fingerprint(root)}\n`);
} else if (isUpToDate(root)) {
  console.log('org: dist/ is already built from these sources (npm run build rebuilds it)');
} else {
  const npm = process.env.npm_execpath;
  const result = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exitCode = result.status ?? 1;
}
