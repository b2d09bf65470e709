import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile, lstat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendJsonl, readJsonl } from './jsonl.js';
import { JsonFile } from './json-file.js';
import { readJson, writeAtomic } from './atomic.js';
import { LinkRefused, guardRoot, mkdirSafe, openReadStream, readFileSafe, readdirSafe, renameSafe } from './safe-fs.js';
import { sweepTemps } from './temps.js';

describe('safe file operations: no symbolic link below a guarded root is ever followed', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'org-safe-fs-'));
    root = join(base, 'home', '.org');
    outside = join(base, 'outside');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'secret.json'), '{"secret":true}\n');
    await guardRoot(root);
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('reads refuse a linked file and a linked folder, naming the path relative to the home', async () => {
    await symlink(join(outside, 'secret.json'), join(root, 'users.json'));
    await symlink(outside, join(root, 'structures'));
    await expect(readFileSafe(join(root, 'users.json'), 'utf8')).rejects.toThrow(LinkRefused);
    await expect(readJson(join(root, 'users.json'), {})).rejects.toThrow(/\.org\/users\.json is a symbolic link/);
    await expect(readFileSafe(join(root, 'structures', 'secret.json'))).rejects.toThrow(/\.org\/structures is a symbolic link/);
    await expect(openReadStream(join(root, 'structures', 'secret.json'))).rejects.toThrow(LinkRefused);
    await expect(readJsonl(join(root, 'structures', 'secret.json'))).rejects.toThrow(LinkRefused);
    await expect(readdirSafe(join(root, 'structures'))).rejects.toThrow(LinkRefused);
    const error = await readFileSafe(join(root, 'users.json')).catch((caught: unknown) => caught);
    expect((error as LinkRefused).status).toBe(409);
    expect((error as LinkRefused).message).not.toContain(base);
  });

  it('atomic writes, JSON documents and appends never write through a link', async () => {
    const target = join(outside, 'secret.json');
    await symlink(target, join(root, 'keys.json'));
    await expect(writeAtomic(join(root, 'keys.json'), 'pwned')).rejects.toThrow(LinkRefused);
    await expect(new JsonFile(join(root, 'keys.json'), () => ({})).load()).rejects.toThrow(LinkRefused);
    await symlink(target, join(root, 'log.jsonl'));
    await expect(appendJsonl(join(root, 'log.jsonl'), { pwned: true })).rejects.toThrow(LinkRefused);
    await symlink(outside, join(root, 'index'));
    await expect(writeAtomic(join(root, 'index', 'skills.json'), 'pwned')).rejects.toThrow(LinkRefused);
    await expect(appendJsonl(join(root, 'index', 'nested', 'x.jsonl'), { pwned: true })).rejects.toThrow(LinkRefused);
    await expect(mkdirSafe(join(root, 'index', 'deeper'))).rejects.toThrow(LinkRefused);
    expect(await readFile(target, 'utf8')).toBe('{"secret":true}\n');
    expect((await readdir(outside)).sort()).toEqual(['secret.json']);
    // The link itself is left as it was: nothing replaced it either.
    expect((await lstat(join(root, 'keys.json'))).isSymbolicLink()).toBe(true);
  });

  it('renames refuse a linked source and a linked destination folder', async () => {
    await writeFile(join(root, 'a.md'), 'a');
    await symlink(outside, join(root, '.deleted'));
    await expect(renameSafe(join(root, 'a.md'), join(root, '.deleted', 'a.md'))).rejects.toThrow(LinkRefused);
    await symlink(join(outside, 'secret.json'), join(root, 'b.md'));
    await expect(renameSafe(join(root, 'b.md'), join(root, 'c.md'))).rejects.toThrow(LinkRefused);
    expect(await readFile(join(root, 'a.md'), 'utf8')).toBe('a');
    expect(await readdir(outside)).toEqual(['secret.json']);
  });

  it('plain files and folders work as before', async () => {
    await writeAtomic(join(root, 'structures', 'x', 'structure.json'), '{"ok":1}');
    expect(await readJson(join(root, 'structures', 'x', 'structure.json'), {})).toEqual({ ok: 1 });
    await appendJsonl(join(root, 'structures', 'x', 'nodes', 'n', 'history.jsonl'), { n: 1 });
    expect(await readJsonl(join(root, 'structures', 'x', 'nodes', 'n', 'history.jsonl'))).toEqual([{ n: 1 }]);
    const { stream, size } = await openReadStream(join(root, 'structures', 'x', 'structure.json'));
    expect(Buffer.concat((await stream.toArray()) as Buffer[]).toString()).toBe('{"ok":1}');
    expect(size).toBe(8);
  });

  it('the root itself may be a link (a deployment choice), but nothing below it', async () => {
    const real = join(base, 'real-state');
    await mkdir(real);
    const linkedRoot = join(base, 'linked-state');
    await symlink(real, linkedRoot);
    await guardRoot(linkedRoot);
    await writeAtomic(join(linkedRoot, 'users.json'), '{}');
    expect(await readFile(join(real, 'users.json'), 'utf8')).toBe('{}');
    await symlink(outside, join(real, 'outbox'));
    await expect(writeAtomic(join(linkedRoot, 'outbox', 'x.eml'), 'x')).rejects.toThrow(/linked-state\/outbox is a symbolic link/);
  });

  it('sweepTemps removes temp files, keeps what `keep` keeps, and neither follows nor removes links', async () => {
    await mkdir(join(root, 'structures', 's', 'nodes', 'n', 'artifacts'), { recursive: true });
    await writeFile(join(root, 'users.json.123456789'), 'half');
    await writeFile(join(root, 'structures', 's', 'structure.json.42'), 'half');
    await writeFile(join(root, 'structures', 's', 'nodes', 'n', 'artifacts', 'report.md.7'), 'half');
    await writeFile(join(root, 'structures', 's', 'nodes', 'n', 'artifacts', 'data.json.1'), 'a listed artifact');
    await writeFile(join(root, 'users.json'), '{}');
    await writeFile(join(outside, 'victim.json.99'), 'outside');
    await symlink(outside, join(root, 'linked'));
    await symlink(join(outside, 'victim.json.99'), join(root, 'link.json.5'));
    const removed = await sweepTemps(root, { recursive: true, keep: (_dir, name) => name === 'data.json.1' });
    expect(removed.sort()).toEqual(['structures/s/nodes/n/artifacts/report.md.7', 'structures/s/structure.json.42', 'users.json.123456789']);
    expect((await readdir(join(root, 'structures', 's', 'nodes', 'n', 'artifacts')))).toEqual(['data.json.1']);
    expect(await readFile(join(outside, 'victim.json.99'), 'utf8')).toBe('outside');
    expect((await lstat(join(root, 'link.json.5'))).isSymbolicLink()).toBe(true);
  });
});
