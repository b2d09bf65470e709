/**
 * The skill gap report: every chat lookup is recorded, `GET /api/org/knowledge/gaps`
 * (operator or owner of the structure) groups the recent messages that matched no skill
 * or only weakly, most frequent first, and a learned draft carries the message that
 * produced it as its first trigger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../src/core/chat/types.js';
import { createLocalRuntime } from '../src/core/runtimes/local.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { dispatchRuntime, startChat, type ChatFixture } from './helpers/chat.js';
import { expectProblem } from './helpers/problem.js';

const LEARN: EventInput[] = [
  { type: 'milestone', content: { title: 'Booked the room' } },
  { type: 'skill_learned', content: { slug: 'book-meeting-room', name: 'Book a meeting room' } },
  { type: 'complete', content: { summary: 'Booked.', artifacts: [] } },
];

const learner: AgentRuntime = {
  name: 'learner',
  async run(_turn, emit) {
    for (const event of LEARN) await emit(event);
  },
};

describe('skill gaps', () => {
  let c: ChatFixture;
  let viewer: { token: string; id: string };
  let outsider: { token: string; id: string };
  const gaps = (token: string, query = '') =>
    c.t.server.inject({ method: 'GET', url: `/api/org/knowledge/gaps?${query || `structure_id=${c.structure.id}`}`, headers: c.t.auth(token) });
  const sync = async (message: string) => {
    const response = await c.sync(message);
    expect(response.statusCode, response.body).toBe(200);
  };

  beforeAll(async () => {
    c = await startChat({ deps: { runtime: () => dispatchRuntime({ learn: learner }, createLocalRuntime()) } });
    viewer = await c.t.createUser('viewer@example.com');
    outsider = await c.t.createUser('outsider@example.com');
    await c.t.app.members.set(c.structure.id, viewer.id, 'viewer');
    await c.t.app.skills.upsert({
      slug: 'pay-suppliers',
      frontmatter: { type: 'skill', name: 'Pay supplier invoices', category: 'finance', difficulty: 'low', tags: ['accounts-payable'], status: 'complete', summary: 'Pay approved bills.' },
      body: 'Use it on payment days.\n\n## [pay] Step 1: Pay\n- Release the batch.\n',
      actor: 'test',
    });
    await sync('Our website is down!');
    await sync('our website is down');
    await sync('pay the supplier invoices');
    await sync('website down???');
    await sync('who can renew my passport');
  });
  afterAll(() => c.close());

  it('groups the chat messages that matched nothing, most frequent first', async () => {
    const response = await gaps(c.owner.token);
    expect(response.statusCode, response.body).toBe(200);
    const list = response.json().gaps as { key: string; count: number; outcome: string; example: string; messages: string[] }[];
    expect(list.map((g) => [g.count, g.example])).toEqual([
      [3, 'website down???'],
      [1, 'who can renew my passport'],
    ]);
    expect(list[0]).toMatchObject({ outcome: 'none', messages: ['website down???', 'our website is down', 'Our website is down!'] });
    expect(list.flatMap((g) => g.messages)).not.toContain('pay the supplier invoices');
  });

  it('is for operators and owners of the structure', async () => {
    expectProblem(await gaps(viewer.token), 403, 'forbidden');
    expectProblem(await gaps(outsider.token), 404, 'not_found');
    expectProblem(await gaps(c.owner.token, 'structure_id=not-a-uuid'), 400, 'invalid_request');
    const all = await gaps(c.t.auth().authorization.slice('Bearer '.length), 'limit=1');
    expect(all.statusCode).toBe(200);
    expect(all.json().gaps).toHaveLength(1);
  });

  it('gives a learned draft the message that produced it as a trigger', async () => {
    await sync('learn book the big meeting room for Friday');
    const skill = await c.t.app.skills.get('book-meeting-room', c.structure.id);
    expect(skill?.frontmatter).toMatchObject({ status: 'draft', learned_by: 'agent', triggers: ['learn book the big meeting room for Friday'] });
  });
});
