/**
 * `org skills search --why/--explain` and `org skills gaps` against a real listening
 * server: the why of a skill that did or did not match, the candidate list, the gap
 * report from recorded chat lookups, and a skill started from a gap with its messages
 * as its first triggers.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillsGaps, slugFromMessage } from '../src/cli/commands/skills-gaps.js';
import { runSkillsSearch } from '../src/cli/commands/skills.js';
import { parseSkillText } from '../src/core/skills/index.js';
import { capture, depsFor } from './cli-helpers.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

describe('skills search and gaps commands', () => {
  let t: TestInstance;
  let token: string;
  let structureId: string;
  const out = capture();
  const as = () => depsFor(t, token, out);

  beforeAll(async () => {
    t = await startInstance({ listen: true });
    token = (await t.createUser('alice@example.com')).token;
    structureId = (await t.createStructure(token, 'exec-team')).id;
    const skill = (slug: string, name: string, extra: Record<string, unknown> = {}) =>
      t.app.skills.upsert({
        slug,
        frontmatter: { type: 'skill', name, category: 'ops', difficulty: 'low', tags: [], status: 'complete', summary: '', ...extra },
        body: 'Use it.\n\n## [go] Step 1: Go\n- Go.\n',
        actor: 'test',
      });
    await skill('handle-outage', 'Handle a production outage', { triggers: ['the site is down'] });
    await skill('plan-offsite', 'Plan a team offsite', { tags: ['offsite'] });
    await skill('book-travel', 'Book business travel', { status: 'draft' });
    for (const message of ['where is the coffee machine', 'Where is the coffee machine?', 'renew my passport']) {
      const response = await t.server.inject({
        method: 'POST',
        url: '/api/org/chat/message/sync',
        headers: t.auth(token),
        payload: { structure_id: structureId, role_id: 'exec-cfo', message },
      });
      expect(response.statusCode, response.body).toBe(200);
    }
  });
  afterAll(() => t.close());

  it('explains why a skill matched or not', async () => {
    expect(await runSkillsSearch({ query: 'the site is down', why: ['handle-outage', 'book-travel'] }, as())).toBe(0);
    const text = out.text();
    expect(out.out[0]).toMatch(/^1\. handle-outage {2}score \d+\.\d\d$/);
    expect(out.out[1]).toBe('   matched trigger "the site is down"');
    expect(text).toContain('why handle-outage: kept, ranked 1');
    expect(text).toContain('words per field: triggers: site, down');
    expect(text).toMatch(/why book-travel \(draft\): cut, it is a draft/);
    expect(text).not.toContain('matched nothing');
    out.clear();

    expect(await runSkillsSearch({ query: 'team offsite in Lisbon', explain: true }, as())).toBe(0);
    expect(out.text()).toMatch(/^1\. +plan-offsite +\d+\.\d\d {2}kept: ranked 1$/m);
    expect(out.text()).toContain('no skill contains "lisbon"');
    out.clear();
  });

  it('prints the gap report and starts a skill from a gap with its messages as triggers', async () => {
    expect(await runSkillsGaps({}, as())).toBe(0);
    expect(out.out[0]).toMatch(/^1\. 2× "Where is the coffee machine\?" {2}\(nothing matched; last \d{4}-\d\d-\d\d\)$/);
    expect(out.out[1]).toBe('   also "where is the coffee machine"');
    expect(out.text()).toContain('2. 1× "renew my passport"');
    expect(out.text()).toContain('org skills gaps --start 1');
    out.clear();

    expect(await runSkillsGaps({ start: 1, home: t.home, edit: false }, as())).toBe(0);
    expect(out.out[0]).toBe('starting where-is-the-coffee-machine from "Where is the coffee machine?" (its first trigger)');
    const file = join(t.home, 'skills', 'where-is-the-coffee-machine.md');
    const parsed = parseSkillText('where-is-the-coffee-machine', await readFile(file, 'utf8'), { learned_by: 'user', learned_at: new Date().toISOString(), category: 'general', difficulty: 'medium' });
    expect(parsed.ok && parsed.skill.frontmatter.triggers).toEqual(['Where is the coffee machine?', 'where is the coffee machine']);
    out.clear();
    await expect(runSkillsGaps({ start: 9 }, as())).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('proposes a slug from a message', () => {
    expect(slugFromMessage('Our WEBSITE is down!!! since 9:00')).toBe('our-website-is-down-since-9');
    expect(slugFromMessage('???')).toBe('new-skill');
  });
});
