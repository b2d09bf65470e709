/**
 * `org serve` and its home, as real processes (issue 16.13, 16.4): a second server on
 * the same home is refused with a message naming the first (no silent divergence); a
 * server killed without cleaning up leaves a lock the next start takes over; a new home
 * starts with a copy of the bundled library (`--no-bundled` opts out); and a server
 * started on another home does not re-point the CLI's default server.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listShippedSkills } from '../src/core/skills/index.js';
import { ensureBuilt, ORG_BIN, REPO_ROOT, startServe, type ServeChild } from './helpers/child.js';

/** Resolves once the child has printed a line containing `text` (the lines after the listening one arrive later). */
function printed(child: ServeChild, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = child.stdout.join('\n');
    const check = () => {
      if (!seen.includes(text)) return false;
      child.process.stdout?.off('data', onData);
      resolve();
      return true;
    };
    const onData = (chunk: Buffer | string) => {
      seen += String(chunk);
      check();
    };
    child.process.stdout?.on('data', onData);
    if (!check()) void child.exited.then(() => reject(new Error(`org serve exited without printing ${JSON.stringify(text)}:\n${seen}`)));
  });
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('ORG_')) env[name] = value;
  return { ...env, ...extra };
}

describe('org serve and its home', () => {
  let config: string;
  let firstUrl = '';
  const running: ServeChild[] = [];
  beforeAll(async () => {
    ensureBuilt();
    config = await mkdtemp(join(tmpdir(), 'org-serve-cfg-'));
  });
  afterAll(async () => {
    for (const child of running) await child.stop('SIGTERM');
  });

  it('copies the bundled skills into a new home, refuses a second server on it, and takes over after a crash', { timeout: 300_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-serve-'));
    const first = await startServe({ home, env: { ORG_CONFIG_DIR: config } });
    running.push(first);
    firstUrl = first.url;
    await printed(first, 'org: new home: copied');
    const bundled = (await listShippedSkills(REPO_ROOT)).map((skill) => skill.name);
    expect((await readdir(join(home, 'skills'))).sort()).toEqual(bundled);
    expect(first.stdout[0]).toBe(`org: listening on ${first.url}`);
    expect(first.stdout).toContain(`org: new home: copied ${bundled.length} bundled skills into ${join(home, 'skills')} (yours to edit; --no-bundled starts empty)`);

    const second = spawnSync(process.execPath, [ORG_BIN, 'serve', '--home', home, '--port', '0'], { env: cleanEnv({ ORG_CONFIG_DIR: config }), encoding: 'utf8' });
    expect(second.status).toBe(5);
    expect(second.stderr.trim()).toBe(`org: ${home} is already served by org serve (pid ${first.process.pid}, ${first.url}); stop it first, or serve another home with --home`);
    expect(second.stdout).not.toContain('listening');

    // SIGKILL leaves the lock behind; the next server takes it over.
    await first.stop('SIGKILL');
    running.pop();
    expect(JSON.parse(await readFile(join(home, '.org', 'serve.lock'), 'utf8'))).toMatchObject({ pid: first.process.pid });
    // The library is the user's now: a skill they deleted is not copied back (seeding
    // happens before the server listens, so the listening line is late enough to look).
    await rm(join(home, 'skills', bundled[0]!));
    const again = await startServe({ home, env: { ORG_CONFIG_DIR: config } });
    running.push(again);
    expect((await readdir(join(home, 'skills'))).sort()).toEqual(bundled.slice(1));
  });

  it('a second server on another home keeps the CLI default server; --no-bundled starts empty', { timeout: 300_000 }, async () => {
    const credentials = JSON.parse(await readFile(join(config, 'credentials.json'), 'utf8')) as { default: string; servers: Record<string, unknown> };
    const before = credentials.default;
    expect(before).toBe(firstUrl); // the first server ever set it: there was none
    const other = await mkdtemp(join(tmpdir(), 'org-serve-other-'));
    const child = await startServe({ home: other, env: { ORG_CONFIG_DIR: config }, args: ['--no-bundled'] });
    running.push(child);
    await printed(child, "org: the CLI's default server stays");
    const after = JSON.parse(await readFile(join(config, 'credentials.json'), 'utf8')) as { default: string; servers: Record<string, unknown> };
    expect(after.default).toBe(before);
    expect(Object.keys(after.servers)).toContain(child.url); // its token is saved for its URL
    expect(child.stdout.join('\n')).toContain(`org: the CLI's default server stays ${before}; use this one with --url ${child.url}, or make it the default with: org login --url ${child.url}`);
    expect(await readdir(join(other, 'skills'))).toEqual([]);
  });

  it('started in the org package without --home serves a home of the user\'s own (~/.org), never the package\'s skills/', { timeout: 300_000 }, async () => {
    const user = await mkdtemp(join(tmpdir(), 'org-user-'));
    const child = await startServe({ cwd: REPO_ROOT, env: { HOME: user, ORG_CONFIG_DIR: config } });
    running.push(child);
    await child.ready;
    const home = join(user, '.org');
    expect(child.stdout).toContain(`org: home ${home}`);
    expect(child.stdout.join('\n')).toContain(`this folder, ${REPO_ROOT.replace(/\/$/, '')}, is the org package`);
    const shipped = (await listShippedSkills(REPO_ROOT)).map((skill) => skill.name);
    expect((await readdir(join(home, 'skills'))).filter((name) => name.endsWith('.md')).sort()).toEqual(shipped);
    expect(existsSync(join(REPO_ROOT, '.org', 'serve.lock'))).toBe(false);
  });

  it('start-up lines say what nodes run on and name a skipped skill file in words, with no JSON log line among them', { timeout: 300_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-serve-broken-'));
    await mkdir(join(home, 'skills'), { recursive: true });
    await writeFile(join(home, 'skills', 'broken.md'), '---\ntype: skill\nname: [unclosed\n---\nbody\n');
    const child = await startServe({ home, env: { ORG_CONFIG_DIR: config }, args: ['--no-demo'] });
    running.push(child);
    await child.ready;
    await printed(child, 'org skills problems lists the skipped files');
    const text = child.stdout.join('\n');
    expect(text).toContain('org: nodes run on the built-in local runtime, which follows skills step by step');
    expect(child.stdout.some((line) => line.startsWith('org: skipped skills/broken.md'))).toBe(true);
    expect(child.stderr()).not.toContain('skill file skipped');
  });
});
