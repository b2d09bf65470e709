/**
 * Auto-learning (API.md §6): a completed turn that used no skill and emitted
 * `skill_learned` stores a `draft` (`learned_by: agent`, the structure's `structure_id`,
 * a body from the event or distilled from the turn as `## [id] Step n: title` sections).
 * The draft is listed as a draft, never found by search, `/<slug>` runs it, a taken slug
 * gets `-2`; a turn that used a skill, or that failed, learns nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContainerAgent, type ContainerAgent } from '../examples/container-agent/server.mjs';
import type { EventInput } from '../src/core/chat/types.js';
import { createLocalRuntime } from '../src/core/runtimes/local.js';
import type { AgentRuntime, Turn } from '../src/core/runtimes/types.js';
import { dispatchRuntime, startChat, type ChatFixture } from './helpers/chat.js';

const STEP_HEADING = /^## \[[a-z0-9-]+\] Step \d+: .+$/gm;

/** A runtime that plays `script` and remembers the turns it was given. */
function recording(script: (turn: Turn) => EventInput[]): AgentRuntime & { turns: Turn[] } {
  const turns: Turn[] = [];
  return {
    name: 'learner',
    turns,
    async run(turn, emit) {
      turns.push(turn);
      for (const event of script(turn)) await emit(event);
    },
  };
}

const DISTIL = (slug: string): EventInput[] => [
  { type: 'thought', content: 'No playbook for this; working it out.' },
  { type: 'tool_call', content: { tool: 'fetch_contacts', args: { source: 'crm', region: 'EU' } } },
  { type: 'tool_result', content: { tool: 'fetch_contacts', result: { count: 12 } } },
  { type: 'milestone', content: { title: 'Merged the supplier contacts' } },
  { type: 'skill_learned', content: { slug, name: 'Gather supplier contacts' } },
  { type: 'complete', content: { summary: 'Gathered 12 contacts.', artifacts: [] } },
];

describe('auto-learned drafts', () => {
  let c: ChatFixture;
  let agent: ContainerAgent;
  let learner: ReturnType<typeof recording>;
  let follower: ReturnType<typeof recording>;
  let withBody: ReturnType<typeof recording>;
  let failing: ReturnType<typeof recording>;

  beforeAll(async () => {
    agent = await startContainerAgent({ log: () => undefined });
    learner = recording(() => DISTIL('gather-supplier-contacts'));
    // Follows the skill it was offered: reads it, or runs its first step.
    follower = recording((turn) => [{ type: 'tool_call', content: { tool: 'read_skill', args: { slug: turn.skills[0]?.slug } } }, ...DISTIL('gather-supplier-contacts')]);
    const stepper = recording((turn) => [{ type: 'milestone', content: { title: `Step 1: ${turn.skills[0]?.steps[0]?.title}` } }, ...DISTIL('gather-supplier-contacts')]);
    withBody = recording(() => [
      { type: 'skill_learned', content: { slug: 'greet-visitors', name: 'Greet visitors', body: '## [welcome] Step 1: Welcome them\n\nSay hello.\n', tags: ['front-desk'] } },
      { type: 'complete', content: { summary: 'greeted', artifacts: [] } },
    ]);
    failing = recording(() => [
      { type: 'skill_learned', content: { slug: 'failed-lesson', name: 'Failed lesson' } },
      { type: 'error', content: { message: 'gave up' } },
    ]);
    c = await startChat({
      deps: { runtime: (node) => (node.container_url ? undefined : dispatchRuntime({ distil: learner, follow: follower, steps: stepper, body: withBody, fail: failing }, createLocalRuntime())) },
    });
    await c.t.app.skills.upsert({
      slug: 'quarterly-tax-filing',
      frontmatter: { type: 'skill', name: 'Quarterly tax filing', status: 'complete', tags: ['tax', 'filing', 'quarterly'], summary: 'Prepare and file the quarterly tax return.' },
      body: '## [collect] Step 1: Collect the invoices\n\nAll of them.\n\n## [file] Step 2: File the return\n\nOnline.\n',
    });
    const patched = await c.t.server.inject({
      method: 'PATCH',
      url: `/api/org/structures/${c.structure.id}/agents/exec-cto`,
      headers: c.t.auth(c.owner.token),
      payload: { container_url: agent.url },
    });
    expect(patched.statusCode).toBe(200);
  });
  afterAll(async () => {
    await c.close();
    await agent.close();
  });

  const drafts = () => c.t.app.skills.list({ structureId: c.structure.id, statuses: ['draft'] }).map((entry) => entry.slug);

  it('stores a draft distilled from the turn when no skill matched', async () => {
    const stream = await c.send('distil gather supplier contacts');
    await stream.ended;
    expect(stream.frames().at(-1)?.event?.type).toBe('complete');
    expect(learner.turns.at(-1)?.skills).toEqual([]);

    const skill = await c.t.app.skills.get('gather-supplier-contacts', c.structure.id);
    expect(skill).toBeDefined();
    expect(skill!.frontmatter).toMatchObject({ status: 'draft', learned_by: 'agent', structure_id: c.structure.id, name: 'Gather supplier contacts', type: 'skill' });
    expect(skill!.body.match(STEP_HEADING)).toEqual([
      '## [call-fetch-contacts] Step 1: Call fetch_contacts',
      '## [merged-the-supplier-contacts] Step 2: Merged the supplier contacts',
    ]);
    expect(skill!.body).toContain('"region": "EU"');
    expect(skill!.steps.map((step) => step.n)).toEqual([1, 2]);
    expect(drafts()).toContain('gather-supplier-contacts');

    // Never found by search, in the learning structure or elsewhere.
    for (const query of ['gather supplier contacts', 'Gather supplier contacts', 'supplier']) {
      expect(c.t.app.skills.search(query, { structureId: c.structure.id, limit: 50 }).map((match) => match.slug)).not.toContain('gather-supplier-contacts');
    }
    // Scoped to its structure: another structure does not even list it.
    const other = await c.t.createStructure(c.owner.token, 'personal', 'Other');
    expect(c.t.app.skills.list({ structureId: other.id, statuses: ['draft'] }).map((entry) => entry.slug)).not.toContain('gather-supplier-contacts');
  });

  it('`/<slug>` runs the draft with the local runtime, and that turn learns nothing', async () => {
    const before = c.t.app.skills.count();
    const stream = await c.send('/gather-supplier-contacts for the EU');
    await stream.ended;
    const events = stream.frames().map((frame) => frame.event!);
    expect(events.filter((event) => event.type === 'milestone').map((event) => event.content)).toEqual([
      { title: 'Step 1: Call fetch_contacts' },
      { title: 'Step 2: Merged the supplier contacts' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'complete', content: { summary: expect.stringContaining('Followed "Gather supplier contacts" through 2 step(s)') } });
    expect(c.t.app.skills.count()).toBe(before);
  });

  it('a second learn of the same slug stores `-2` and tells the client', async () => {
    const stream = await c.send('distil gather supplier contacts again');
    await stream.ended;
    const second = await c.t.app.skills.get('gather-supplier-contacts-2', c.structure.id);
    expect(second?.frontmatter).toMatchObject({ status: 'draft', learned_by: 'agent', structure_id: c.structure.id });
    // The stream carries one skill_learned: the outcome, naming the slug actually stored, just before complete.
    const learned = stream.frames().filter((frame) => frame.event?.type === 'skill_learned').map((frame) => frame.event?.content);
    expect(learned).toEqual([{ slug: 'gather-supplier-contacts-2', name: 'Gather supplier contacts', stored: true }]);
    expect(stream.frames().slice(-2).map((frame) => frame.event?.type)).toEqual(['skill_learned', 'complete']);
    // The history says the same.
    const agent = await c.settled(String(stream.headers['x-org-run-id']));
    expect(agent.events.filter((event) => event.type === 'skill_learned').map((event) => event.content)).toEqual(learned);
    expect(drafts()).toEqual(expect.arrayContaining(['gather-supplier-contacts', 'gather-supplier-contacts-2']));
    // The first draft is unchanged.
    expect((await c.t.app.skills.get('gather-supplier-contacts', c.structure.id))?.frontmatter.name).toBe('Gather supplier contacts');
  });

  it('takes the body from the event when it has one', async () => {
    const stream = await c.send('body greet the visitors');
    await stream.ended;
    const skill = await c.t.app.skills.get('greet-visitors', c.structure.id);
    expect(skill?.body.trim()).toBe('## [welcome] Step 1: Welcome them\n\nSay hello.');
    expect(skill?.frontmatter).toMatchObject({ status: 'draft', learned_by: 'agent', tags: ['front-desk'] });
  });

  it('a container that learns with plain `## Step n:` headings gets a draft whose steps parse', async () => {
    const stream = await c.send('learn', { roleId: 'exec-cto' });
    await stream.ended;
    expect(stream.frames().at(-1)?.event?.type).toBe('complete');
    const skill = await c.t.app.skills.get('echo-a-message', c.structure.id);
    expect(skill?.frontmatter).toMatchObject({ status: 'draft', learned_by: 'agent', structure_id: c.structure.id });
    expect(skill?.steps.map((step) => [step.n, step.title])).toEqual([
      [1, 'Read the message'],
      [2, 'Echo it'],
    ]);
    expect(skill?.body.match(STEP_HEADING)).toHaveLength(2);
  });

  it('a turn that followed a skill (read it, ran its steps), or that failed, learns nothing', async () => {
    const before = c.t.app.skills.count();
    const used = await c.send('follow prepare the quarterly tax filing');
    await used.ended;
    expect(follower.turns.at(-1)?.skills.map((skill) => skill.slug)).toEqual(['quarterly-tax-filing']);
    const usedOutcome = used.frames().filter((frame) => frame.event?.type === 'skill_learned').map((frame) => frame.event?.content);
    expect(usedOutcome).toEqual([
      { slug: 'gather-supplier-contacts', name: 'Gather supplier contacts', stored: false, reason: expect.stringContaining('followed the skill quarterly-tax-filing (read it)') },
    ]);
    const ran = await c.send('steps prepare the quarterly tax filing');
    await ran.ended;
    expect(ran.frames().find((frame) => frame.event?.type === 'skill_learned')?.event?.content).toMatchObject({
      stored: false,
      reason: expect.stringContaining('followed the skill quarterly-tax-filing (ran its steps)'),
    });
    expect(used.frames().at(-1)?.event?.type).toBe('complete');

    const failed = await c.send('fail at learning');
    await failed.ended;
    expect(failed.frames().slice(-2).map((frame) => frame.event?.type)).toEqual(['skill_learned', 'error']);
    expect(failed.frames().at(-2)?.event?.content).toMatchObject({ slug: 'failed-lesson', stored: false, reason: expect.stringContaining('did not complete') });

    expect(c.t.app.skills.count()).toBe(before);
    expect(await c.t.app.skills.get('gather-supplier-contacts-3', c.structure.id)).toBeUndefined();
    expect(await c.t.app.skills.get('failed-lesson', c.structure.id)).toBeUndefined();
  });

  it('the draft is excluded from search only because it is a draft', async () => {
    // Control: the same skill marked complete is found by the same query.
    const skill = await c.t.app.skills.get('gather-supplier-contacts', c.structure.id);
    await c.t.app.skills.upsert({ slug: 'gather-supplier-contacts', frontmatter: { ...skill!.frontmatter, status: 'complete' }, body: skill!.body, structureId: c.structure.id });
    expect(c.t.app.skills.search('gather supplier contacts', { structureId: c.structure.id }).map((match) => match.slug)).toContain('gather-supplier-contacts');
  });
});
