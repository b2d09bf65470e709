/**
 * The LLM runtime keeps its promises (issue 31.10), through HTTP against a recording
 * OpenAI-compatible server: every tool's arguments are checked against the schema the
 * model was sent (an empty decision is refused, not logged); an answer the provider cut
 * off (`finish_reason: "length"`) says so; the tool-round bound is ORG_LLM_MAX_ROUNDS;
 * chit-chat puts no playbook in the prompt; the gap report holds what people asked (not
 * the model's own searches) and drops a gap once a skill covers it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/core/config.js';
import { parseSkillText } from '../src/core/skills/index.js';
import { startChat, type ChatFixture } from './helpers/chat.js';
import { REPO_ROOT } from './helpers/child.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from './helpers/scripted-llm.js';

const userOf = (request: RecordedRequest) => request.body.messages.find((message) => message.role === 'user')?.content ?? '';
const toolResults = (request: RecordedRequest) => request.body.messages.filter((message) => message.role === 'tool');

function script(request: RecordedRequest): ScriptedReply {
  const user = userOf(request);
  const results = toolResults(request).length;
  if (user.startsWith('decide')) {
    if (results === 0) return { toolCalls: [{ id: 'call_empty', name: 'record_decision', arguments: '{"title": "Ship on Friday", "body": ""}' }] };
    if (results === 1) return { toolCalls: [{ id: 'call_full', name: 'record_decision', arguments: '{"title": "Ship on Friday", "body": "The release is ready."}' }] };
    return { text: 'Decided.' };
  }
  if (user.startsWith('essay')) return { text: 'This answer is cut o', finishReason: 'length' };
  if (user.startsWith('loop')) return { toolCalls: [{ id: `call_${results}`, name: 'flag_milestone', arguments: `{"title": "round ${results}"}` }] };
  if (user.startsWith('research')) {
    if (results === 0) return { toolCalls: [{ id: 'call_search', name: 'search_skills', arguments: '{"query": "quantum flux capacitor calibration"}' }] };
    return { text: 'Nothing in the library.' };
  }
  return { text: 'Hello!' };
}

describe('LLM runtime promises', () => {
  let c: ChatFixture;
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm(script);
    const { llm: config } = resolveConfig({}, { ORG_LLM_URL: llm.url, ORG_LLM_MODEL: 'test-model', ORG_LLM_MAX_ROUNDS: '3' }, '/');
    c = await startChat({ config: { llm: config! } });
    // Two bundled playbooks whose triggers hold "say" ("what do competitors say about us").
    for (const slug of ['run-competitive-analysis', 'run-literature-review']) {
      const parsed = parseSkillText(slug, await readFile(join(REPO_ROOT, 'skills', `${slug}.md`), 'utf8'), { learned_by: 'system', learned_at: '2026-01-01T00:00:00.000Z', category: 'general', difficulty: 'medium' });
      if (!parsed.ok) throw new Error(`${slug}: ${parsed.message}`);
      await c.t.app.skills.upsert({ slug, frontmatter: parsed.skill.frontmatter, body: parsed.skill.body });
    }
  });
  afterAll(async () => {
    await c.close();
    await llm.close();
  });

  const run = async (message: string) => {
    const start = llm.requests.length;
    const stream = await c.send(message);
    await stream.ended;
    return { events: stream.frames().map((frame) => frame.event!), requests: llm.requests.slice(start) };
  };

  it('checks every tool call against its schema: an empty decision body is refused, not logged', async () => {
    const { events, requests } = await run('decide when we ship');
    const empty = JSON.parse(toolResults(requests[1]!)[0]!.content!) as { error: string };
    expect(empty.error).toBe('invalid arguments for record_decision: "body" must not have fewer than 1 characters');
    expect(events.filter((event) => event.type === 'decision').map((event) => event.content)).toEqual([{ title: 'Ship on Friday', body: 'The release is ready.' }]);
    const log = await c.t.server.inject({ method: 'GET', url: `/api/org/structures/${c.structure.id}/log`, headers: c.t.auth(c.owner.token) });
    expect(log.json<{ entries: { body?: string }[] }>().entries.map((entry) => entry.body)).toEqual(['The release is ready.']);
  });

  it('an answer cut off at the output limit says so, in the text and the summary', async () => {
    const { events } = await run('essay on our history');
    expect(events.filter((event) => event.type === 'text').map((event) => event.content).join('')).toBe('This answer is cut o\n\n(the answer was cut off: the model reached its output limit.)');
    expect(events.at(-1)).toMatchObject({ type: 'complete', content: { summary: 'This answer is cut o (the answer was cut off: the model reached its output limit)' } });
  });

  it('bounds the rounds of tool calls by ORG_LLM_MAX_ROUNDS, naming it', async () => {
    const { events, requests } = await run('loop forever');
    expect(requests).toHaveLength(4);
    expect(events.filter((event) => event.type === 'milestone')).toHaveLength(3);
    expect(events.at(-1)).toEqual(
      expect.objectContaining({ type: 'error', content: { message: 'the model used more than 3 rounds of tool calls in one turn (ORG_LLM_MAX_ROUNDS sets the limit)' } }),
    );
    expect(resolveConfig({}, { ORG_LLM_URL: llm.url, ORG_LLM_MODEL: 'm' }, '/').llm?.maxToolRounds).toBeUndefined();
    expect(() => resolveConfig({}, { ORG_LLM_URL: llm.url, ORG_LLM_MODEL: 'm', ORG_LLM_MAX_ROUNDS: '0' }, '/')).toThrow(/ORG_LLM_MAX_ROUNDS must be a whole number from 1 to 1000, got "0"/);
  });

  it('chit-chat puts no playbook in the prompt', async () => {
    const { requests } = await run('hi there, just say hello');
    const system = requests[0]!.body.messages[0]!.content ?? '';
    expect(system).toContain('## Skills that match this request\nNone matched.');
    expect(system).not.toMatch(/\(\/[a-z0-9-]+\) — score/);
  });

  it('the gap report holds what people asked, not the model\'s own searches, and drops a gap a skill now covers', async () => {
    await run('research quantum flux capacitor calibration');
    const gaps = async () => {
      const response = await c.t.server.inject({ method: 'GET', url: `/api/org/knowledge/gaps?structure_id=${c.structure.id}`, headers: c.t.auth(c.owner.token) });
      return response.json<{ gaps: { example: string }[] }>().gaps.map((gap) => gap.example);
    };
    const before = await gaps();
    expect(before).toContain('research quantum flux capacitor calibration');
    expect(before).not.toContain('quantum flux capacitor calibration'); // the model's search_skills query
    await c.t.app.skills.upsert({
      slug: 'calibrate-flux-capacitor',
      frontmatter: { type: 'skill', name: 'Calibrate the quantum flux capacitor', status: 'complete', tags: ['quantum', 'flux', 'capacitor', 'calibration'], summary: 'Research and calibrate the quantum flux capacitor.' },
      body: '## [measure] Step 1: Measure the flux\n\nUse the meter.\n',
      structureId: c.structure.id,
    });
    expect(await gaps()).not.toContain('research quantum flux capacitor calibration');
  });
});
