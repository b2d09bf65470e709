/**
 * Front matter is bounded in nesting depth and size (issue 10, item 5): a deeply nested
 * unknown member used to overflow the YAML dumper's stack (500). Over HTTP such a skill
 * is a 400 naming the limit; in a file it is a load problem; nothing is written.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FRONTMATTER_BYTES, MAX_FRONTMATTER_DEPTH } from '../src/core/skills/frontmatter.js';
import { expectProblem } from './helpers/problem.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

/** `{a: {a: … 'x' …}}`, `levels` objects deep. */
function nested(levels: number): unknown {
  let value: unknown = 'x';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('front matter bounds', () => {
  let t: TestInstance;
  let structureId: string;
  const post = (slug: string, extra: Record<string, unknown>) =>
    t.server.inject({
      method: 'POST',
      url: '/api/org/knowledge/skills',
      headers: t.auth(),
      payload: { structure_id: structureId, slug, frontmatter: { type: 'skill', name: 'Deep', status: 'draft', ...extra }, body: 'Body.\n' },
    });

  beforeAll(async () => {
    t = await startInstance();
    structureId = (await t.createStructure(t.auth().authorization.slice(7), 'blank')).id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a member nested 3,000 deep is a 400 naming the limit, not a 500; nothing is written', async () => {
    const problem = expectProblem(await post('deep', { extra: nested(3000) }), 400, 'invalid_request');
    expect(problem.detail).toBe(`invalid skill: frontmatter must not nest deeper than ${MAX_FRONTMATTER_DEPTH} levels`);
    expect(problem.errors).toEqual([{ path: 'frontmatter', message: `must not nest deeper than ${MAX_FRONTMATTER_DEPTH} levels` }]);
    expect(await readdir(join(t.home, 'skills'))).toEqual([]);
  });

  it('the limit is exact: one level below it is stored, one above is refused', async () => {
    // The front matter is level 1 and `extra` level 2, so `extra` may nest LIMIT - 1 objects.
    expect((await post('at-limit', { extra: nested(MAX_FRONTMATTER_DEPTH - 1) })).statusCode).toBe(201);
    expectProblem(await post('over-limit', { extra: nested(MAX_FRONTMATTER_DEPTH) }), 400, 'invalid_request');
    const got = await t.server.inject({ method: 'GET', url: '/api/org/knowledge/skills/at-limit', headers: t.auth() });
    expect(got.json<{ frontmatter: { extra: unknown } }>().frontmatter.extra).toEqual(nested(MAX_FRONTMATTER_DEPTH - 1));
  });

  it('front matter over the size limit is a 400', async () => {
    const problem = expectProblem(await post('large', { notes: 'n'.repeat(MAX_FRONTMATTER_BYTES) }), 400, 'invalid_request');
    expect(problem.detail).toBe(`invalid skill: frontmatter must be at most ${MAX_FRONTMATTER_BYTES / 1024} KiB`);
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    expectProblem(await post('wide', { wide }), 400, 'invalid_request');
  });

  it('files with too deep or too large front matter are load problems with a clear message', async () => {
    const flow = `${'{a: '.repeat(3000)}1${'}'.repeat(3000)}`;
    const files: Record<string, string> = {
      'flow-deep.md': `---\ntype: skill\nname: X\nstatus: complete\nextra: ${flow}\n---\nBody\n`,
      'block-deep.md': `---\ntype: skill\nname: X\nstatus: complete\nextra: ${JSON.stringify(nested(100))}\n---\nBody\n`,
      'huge.md': `---\ntype: skill\nname: X\nstatus: complete\nnotes: ${'n'.repeat(MAX_FRONTMATTER_BYTES + 100)}\n---\nBody\n`,
    };
    const pending = new Set(Object.keys(files));
    const seen = new Promise<void>((resolve) => {
      const stop = t.app.skills.subscribe((event) => {
        if (event.type === 'problem') pending.delete(event.file);
        if (pending.size === 0) {
          stop();
          resolve();
        }
      });
    });
    for (const [name, text] of Object.entries(files)) await writeFile(join(t.home, 'skills', name), text);
    await seen;
    const problems = (await t.server.inject({ method: 'GET', url: '/api/org/knowledge/problems', headers: t.auth() })).json<{ problems: { file: string; line?: number; message: string }[] }>();
    expect(problems.problems).toEqual(
      expect.arrayContaining([
        { file: 'flow-deep.md', line: 1, message: 'front matter nests too deeply to be read' },
        { file: 'block-deep.md', line: 1, message: `frontmatter must not nest deeper than ${MAX_FRONTMATTER_DEPTH} levels` },
        { file: 'huge.md', line: 1, message: `front matter must be at most ${MAX_FRONTMATTER_BYTES / 1024} KiB` },
      ]),
    );
    expect((await t.server.inject({ method: 'GET', url: '/api/org/health' })).statusCode).toBe(200);
  });
});
