import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEMPLATE_NAMES, type Template, checkTemplate, loadTemplates } from './templates.js';

const PACKAGE_TEMPLATES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'templates');

const node = (role_id: string, parent: string | null, extra: Partial<Template['nodes'][number]> = {}) => ({
  role_id,
  label: role_id,
  parent,
  x: 0,
  y: 0,
  starting_context: 'context',
  ...extra,
});

describe('checkTemplate', () => {
  it('accepts an empty tree and a proper tree', () => {
    expect(checkTemplate({ name: 'blank', description: '', nodes: [] })).toEqual([]);
    expect(checkTemplate({ name: 't', description: '', nodes: [node('a-root', null), node('a-one', 'a-root'), node('a-two', 'a-one')] })).toEqual([]);
  });

  it('names each problem: bad role id, repeat, missing label, no numbers, later parent, two roots', () => {
    const problems = checkTemplate({
      name: 't',
      description: '',
      nodes: [
        node('a-root', null),
        node('single', 'a-root'),
        node('a-root', 'a-root'),
        node('a-nolabel', 'a-root', { label: '' }),
        node('a-nopos', 'a-root', { x: '1' as unknown as number }),
        node('a-early', 'a-late'),
        node('a-late', 'a-root'),
        node('a-second', null),
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/nodes\[1\]\.role_id is not a valid role id/),
        expect.stringMatching(/nodes\[2\]\.role_id a-root is repeated/),
        expect.stringMatching(/nodes\[3\]\.label/),
        expect.stringMatching(/nodes\[4\] needs numeric x and y/),
        expect.stringMatching(/nodes\[5\]\.parent a-late is not an earlier node/),
        expect.stringMatching(/exactly one root, found 2/),
      ]),
    );
  });
});

describe('loadTemplates', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-templates-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the five templates of the package, each a valid tree with useful context', async () => {
    const templates = await loadTemplates(PACKAGE_TEMPLATES);
    for (const name of TEMPLATE_NAMES) {
      const template = templates.get(name);
      expect(template, name).toBeDefined();
      expect(template!.name).toBe(name);
      expect(template!.description.length, name).toBeGreaterThan(0);
      expect(checkTemplate(template!)).toEqual([]);
      if (name === 'blank') {
        expect(template!.nodes).toEqual([]);
        continue;
      }
      expect(template!.nodes.length, name).toBeGreaterThanOrEqual(2);
      for (const entry of template!.nodes) expect(entry.starting_context.trim().length, `${name} ${entry.role_id}`).toBeGreaterThan(40);
    }
  });

  it('fails at start-up, naming the file, for a broken template or a missing one', async () => {
    const write = (name: string, template: unknown) => writeFile(join(dir, `${name}.json`), JSON.stringify(template));
    for (const name of TEMPLATE_NAMES) await write(name, { description: name, nodes: [] });
    await expect(loadTemplates(dir)).resolves.toHaveProperty('size', 5);
    await write('broken', { description: 'x', nodes: [node('a-one', null), node('a-two', null)] });
    await expect(loadTemplates(dir)).rejects.toThrow(/broken\.json: .*exactly one root/);
    await rm(join(dir, 'broken.json'));
    await rm(join(dir, 'personal.json'));
    await expect(loadTemplates(dir)).rejects.toThrow(/personal\.json is missing/);
  });
});
