/**
 * Zip imports are bounded by what they really inflate to, and write only regular,
 * visible files inside the skill's folder (DESIGN.md "Bound before you expand"): entries
 * whose headers lie about their sizes are stopped at the limit of the bytes they really
 * inflate to; more entries than the limit (whatever the archive declares) are refused;
 * paths that are too deep or have a segment too long for a file system, `..`, absolute
 * paths, hidden files and folders (`.git/config`, `.env`) and symbolic link entries are
 * skipped and reported, and nothing of them is written. On a real listening server.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNZIP_LIMITS, unzipFolders } from '../src/core/skills/agent-skills/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const enc = (text: string) => new TextEncoder().encode(text);
const SKILL = (name: string) => enc(`---\nname: ${name}\ndescription: Does ${name}. Use when asked.\n---\n# ${name}\n\n1. First\n2. Second\n`);

let t: TestInstance;
let owner: { token: string };
let structureId: string;
let work: string;

beforeAll(async () => {
  t = await startInstance({ listen: true });
  owner = await t.createUser('owner@example.com');
  structureId = (await t.createStructure(owner.token, 'blank')).id;
  work = await mkdtemp(join(tmpdir(), 'org-zip-'));
});
afterAll(async () => {
  await t.close();
  await rm(work, { recursive: true, force: true });
});

const importZip = async (zip: Uint8Array, dryRun = false) => {
  const answer = await fetch(`${t.url}/api/org/knowledge/import?structure_id=${structureId}&dry_run=${dryRun}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/zip' },
    body: zip,
  });
  return { status: answer.status, body: (await answer.json()) as { detail?: string; skills?: { slug: string; action: string; files: string[] }[]; problems?: { path: string; message: string }[] } };
};

/** Rewrites the uncompressed size of the entries whose name ends with `suffix`, in their local and central headers. */
function lieAboutSizes(zip: Uint8Array, suffix: string, size: number): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const nameAt = (at: number, length: number) => new TextDecoder().decode(zip.subarray(at, at + length));
  for (let i = 0; i + 46 < zip.length; i++) {
    const signature = view.getUint32(i, true);
    if (signature === 0x04034b50 && nameAt(i + 30, view.getUint16(i + 26, true)).endsWith(suffix)) view.setUint32(i + 22, size, true);
    if (signature === 0x02014b50 && nameAt(i + 46, view.getUint16(i + 28, true)).endsWith(suffix)) view.setUint32(i + 24, size, true);
  }
  return zip;
}

/** Every file below `dir` (relative paths), links and hidden ones included. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true }).catch(() => [])) {
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory()) await walk(join(at, entry.name), `${path}/`);
      else out.push(path);
    }
  };
  await walk(dir, '');
  return out.sort();
}

describe('zip imports are bounded by what they inflate to', () => {
  it('an entry that declares 10 bytes and inflates past the per-file limit is refused (413), nothing written', async () => {
    const zip = lieAboutSizes(zipSync({ 'liar/SKILL.md': SKILL('liar'), 'liar/data.bin': new Uint8Array(UNZIP_LIMITS.maxFileBytes + 1) }, { level: 1 }), 'data.bin', 10);
    expect(zip.length).toBeLessThan(64 * 1024);
    const answer = await importZip(zip);
    expect(answer.status).toBe(413);
    expect(answer.body.detail).toBe(`liar/data.bin is larger than ${UNZIP_LIMITS.maxFileBytes} bytes once inflated`);
    expect(await t.app.skills.get('liar', structureId)).toBeUndefined();
  });

  it('entries that each fit but lie about their total are stopped at the total limit (at the limit: one byte over)', async () => {
    // The same rule as the server's, with limits small enough to test at the limit cheaply.
    const limits = { maxEntries: 10, maxFileBytes: 1000, maxTotalBytes: 3000 };
    const parts = (sizes: number[]) => {
      const files: Zippable = { 'many/SKILL.md': new Uint8Array(1000) };
      sizes.forEach((size, i) => (files[`many/part-${i}.bin`] = new Uint8Array(size)));
      return lieAboutSizes(zipSync(files), '.bin', 1);
    };
    // 1000 + 1000 + 1000 bytes: at the total; one byte more is over it.
    expect((await unzipFolders(parts([1000, 1000]), limits)).folders[0]!.files.size).toBe(3);
    await expect(unzipFolders(parts([1000, 1000, 1]), limits)).rejects.toThrow('the zip holds more than 3000 bytes once inflated');
    await expect(unzipFolders(parts([1001]), limits)).rejects.toThrow('many/part-0.bin is larger than 1000 bytes once inflated');
  });

  it('more entries than the limit are refused even when the archive declares one', async () => {
    const files: Zippable = { 'crowd/SKILL.md': SKILL('crowd') };
    for (let i = 0; i < UNZIP_LIMITS.maxEntries; i++) files[`crowd/f${i}.txt`] = enc('x');
    const zip = zipSync(files);
    // The end record's count says 1.
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    const end = zip.length - 22;
    expect(view.getUint32(end, true)).toBe(0x06054b50);
    view.setUint16(end + 8, 1, true);
    view.setUint16(end + 10, 1, true);
    const answer = await importZip(zip);
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toBe(`the zip holds more than ${UNZIP_LIMITS.maxEntries} files`);
    expect(await t.app.skills.get('crowd', structureId)).toBeUndefined();
  });

  it('within the limits, the skill and its regular files are imported', async () => {
    const answer = await importZip(zipSync({ 'fits/SKILL.md': SKILL('fits'), 'fits/data.bin': new Uint8Array(1024 * 1024) }, { level: 1 }));
    expect(answer.status).toBe(200);
    expect(answer.body.skills).toEqual([expect.objectContaining({ slug: 'fits', action: 'create', files: ['data.bin'] })]);
    expect((await t.app.skills.files('fits', structureId)).get('data.bin')?.length).toBe(1024 * 1024);
  });

  it('paths too deep or too long, .., absolute paths, hidden files and folders and symbolic links are skipped and never written', async () => {
    const link = (target: string): [Uint8Array, { os: number; attrs: number }] => [enc(target), { os: 3, attrs: (0o120777 << 16) >>> 0 }];
    const deep = `${Array.from({ length: 40 }, (_, i) => `d${i}`).join('/')}/deep.txt`;
    const files: Zippable = {
      'unsafe/SKILL.md': SKILL('unsafe'),
      'unsafe/scripts/ok.sh': enc('echo ok\n'),
      [`unsafe/${deep}`]: enc('deep'),
      [`unsafe/${'x'.repeat(300)}.txt`]: enc('long'),
      'unsafe/.git/config': enc('[core]\n\tfsmonitor = touch /tmp/owned\n'),
      'unsafe/.git/hooks/post-checkout': enc('#!/bin/sh\ntouch /tmp/owned\n'),
      'unsafe/scripts/.env': enc('SECRET=1\n'),
      'unsafe/../../evil.txt': enc('evil'),
      '/etc/absolute.txt': enc('abs'),
      'unsafe/scripts/passwd': link('/etc/passwd'),
      'unsafe/escape': link('../../../../'),
    };
    for (const dryRun of [true, false]) {
      const answer = await importZip(zipSync(files), dryRun);
      expect(answer.status).toBe(200);
      expect(answer.body.skills).toEqual([expect.objectContaining({ slug: 'unsafe', action: dryRun ? 'create' : 'create', files: ['scripts/ok.sh'] })]);
      const messages = Object.fromEntries((answer.body.problems ?? []).map((problem) => [problem.path, problem.message]));
      expect(messages).toMatchObject({
        [`unsafe/${deep}`]: 'unsafe path: skipped',
        [`unsafe/${'x'.repeat(300)}.txt`.slice(0, 200)]: 'unsafe path: skipped',
        'unsafe/.git/config': expect.stringContaining('hidden file or folder'),
        'unsafe/.git/hooks/post-checkout': expect.stringContaining('hidden file or folder'),
        'unsafe/scripts/.env': expect.stringContaining('hidden file or folder'),
        'unsafe/../../evil.txt': 'unsafe path: skipped',
        '/etc/absolute.txt': 'unsafe path: skipped',
        'unsafe/scripts/passwd': expect.stringContaining('symbolic link'),
        'unsafe/escape': expect.stringContaining('symbolic link'),
      });
    }
    // Only the skill file and its one regular file were written, in the structure's folder.
    expect((await tree(join(t.home, 'skills', structureId))).filter((path) => path.startsWith('unsafe'))).toEqual(['unsafe.md', 'unsafe/scripts/ok.sh']);
    expect(await tree(t.home)).not.toContain('evil.txt');
  });
});
