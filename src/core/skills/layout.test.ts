import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateLayout } from './layout.js';

const S = '0b6f1a52-1111-4222-8333-444455556666';
const skill = (name: string, extra: string[] = []) => ['---', 'type: skill', `name: ${name}`, 'status: complete', ...extra, '---', `${name} body.`, ''].join('\n');

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'org-layout-unit-'));
  await mkdir(join(home, 'skills'));
});
afterEach(() => rm(home, { recursive: true, force: true }));

describe('migrateLayout', () => {
  it('moves every spelling of a structure_id key (plain, quoted, YAML-escaped) and leaves instance skills', async () => {
    const root = join(home, 'skills');
    await writeFile(join(root, 'shared.md'), skill('Shared'));
    await writeFile(join(root, 'plain.md'), skill('Plain', [`structure_id: ${S}`]));
    await writeFile(join(root, 'quoted.md'), skill('Quoted', [`'structure_id': ${S}`]));
    // A key spelled with escapes holds no `structure_id` text: the file is still read as a structure's.
    await writeFile(join(root, 'escaped.md'), skill('Escaped', [`"structure\\x5fid": ${S}`]));
    const done = await migrateLayout({ root, stateDir: join(home, '.org'), log: () => undefined, commit: false });
    expect(done.moved.map(({ from }) => from).sort()).toEqual(['escaped.md', 'plain.md', 'quoted.md']);
    expect((await readdir(join(root, S))).sort()).toEqual(['escaped.md', 'plain.md', 'quoted.md']);
    expect(await readdir(root)).toContain('shared.md');
  });
});
