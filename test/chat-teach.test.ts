/**
 * Learning without an LLM or code (issue 16.2), through the real engine and the local
 * runtime: a request no skill covers is answered with a request to be taught; a `/teach`
 * reply with the steps is stored as a draft (the stream's outcome names it); once
 * approved, the same request follows the taught steps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient } from '../src/client/index.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

describe('teaching the local runtime', () => {
  let t: TestInstance;
  let client: OrgClient;
  let structureId: string;
  beforeAll(async () => {
    t = await startInstance({ listen: true });
    client = new OrgClient({ url: t.url, token: ADMIN_TOKEN });
    structureId = (await client.createStructure('Teach', 'exec-team')).id;
  });
  afterAll(() => t.close());

  const say = (message: string) => client.chatSync({ structure_id: structureId, role_id: 'exec-coo', message });

  it('asks, learns a draft from /teach, and follows it once approved', async () => {
    const asked = await say('plan a team offsite');
    expect(asked.summary).toBe('No skill covers "plan a team offsite" yet: teach me with /teach and the steps.');
    expect(asked.events.find((event) => event.type === 'text')?.content).toContain('reply with /teach and the steps');
    expect(asked.events.some((event) => event.type === 'skill_learned')).toBe(false);

    // A lone /teach keeps the question open: the steps may follow in the next message.
    const lone = await say('/teach');
    expect(lone.summary).toBe(asked.summary);
    expect(lone.events.find((event) => event.type === 'text')?.content).toBe('Send me the steps for "plan a team offsite" after /teach, one per line or separated by ";".\n');
    expect(lone.events.some((event) => event.type === 'skill_learned')).toBe(false);

    const taught = await say('/teach Collect the dates that work for everyone; Book a venue within the budget; Send the agenda');
    const outcome = taught.events.find((event) => event.type === 'skill_learned');
    expect(outcome?.content).toEqual({ slug: 'plan-a-team-offsite', name: 'Plan a team offsite', stored: true });
    // What was taught is no work done: no milestones, so nothing reaches the workspace log.
    expect(taught.events.filter((event) => event.type === 'milestone')).toEqual([]);
    expect(taught.events.filter((event) => event.type === 'text').map((event) => event.content).join('')).toContain(
      '1. Collect the dates that work for everyone\n2. Book a venue within the budget\n3. Send the agenda',
    );
    const draft = await client.getSkill('plan-a-team-offsite');
    // The trigger is the request that was taught, and a person taught it.
    expect(draft.frontmatter).toMatchObject({ status: 'draft', learned_by: 'user', structure_id: structureId, name: 'Plan a team offsite', triggers: ['plan a team offsite'] });
    expect(draft.steps.map((step) => step.title)).toEqual(['Collect the dates that work for everyone', 'Book a venue within the budget', 'Send the agenda']);

    // Drafts do not auto-resolve: the request still asks to be taught until it is approved.
    expect((await say('plan a team offsite')).summary).toMatch(/^No skill covers/);
    await client.saveSkill({ structure_id: structureId, slug: draft.slug, frontmatter: { ...draft.frontmatter, status: 'complete' }, body: draft.body });
    const followed = await say('plan a team offsite');
    expect(followed.summary).toMatch(/^Followed "Plan a team offsite" through 3 step\(s\)/);
    expect(followed.events.filter((event) => event.type === 'milestone').map((event) => event.content.title)[0]).toBe('Step 1: Collect the dates that work for everyone');
  });

  it('without a pending question, /teach takes the request from its first line (or before a colon); without a request or steps it learns nothing', async () => {
    const taught = await say('/teach onboard a new vendor\n1. Get the W-9\n2. Add them to the ledger');
    expect(taught.events.find((event) => event.type === 'skill_learned')?.content).toMatchObject({ slug: 'onboard-a-new-vendor', stored: true });
    expect((await client.getSkill('onboard-a-new-vendor')).frontmatter).toMatchObject({ learned_by: 'user', triggers: ['onboard a new vendor'] });
    const empty = await say('/teach');
    expect(empty.summary).toBe('Nothing learned: the lesson did not say what the steps are for.');
    expect(empty.events.some((event) => event.type === 'skill_learned')).toBe(false);
    // Steps alone are not taken for the request; "request: steps" on one line teaches.
    const stepsOnly = await say('/teach 1. Pick dates 2. Book a venue');
    expect(stepsOnly.summary).toBe('Nothing learned: the lesson did not say what the steps are for.');
    const oneLine = await say('/teach water the plants: check which are dry; water them');
    expect(oneLine.events.find((event) => event.type === 'skill_learned')?.content).toMatchObject({ slug: 'water-the-plants', stored: true });
    const plants = await client.getSkill('water-the-plants');
    expect(plants.frontmatter).toMatchObject({ learned_by: 'user', triggers: ['water the plants'] });
    const noSteps = await say('/teach water the ferns');
    expect(noSteps.summary).toBe('Nothing learned: the lesson had no steps to keep.');
  });
});
