/**
 * What the LLM runtime learns (issue 31.4), through HTTP against a recording
 * OpenAI-compatible server: a skill the search offered on one word of the request
 * ("paper"), which the model never read, does not cover the turn, so `learn_skill`'s
 * draft is stored as its answer promised; a turn that read a skill learns nothing, and
 * `learn_skill` says so at once, as the `skill_learned` outcome says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChat, type ChatFixture } from './helpers/chat.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from './helpers/scripted-llm.js';

const PLAYBOOK = '## Step 1: Check the stock\n\nCount the reams.\n\n## Step 2: Order\n\nOrder what is missing.\n';

/** learn_skill first; after its result, a closing answer. With "read first", read_skill before it. */
function script(request: RecordedRequest): ScriptedReply {
  const user = request.body.messages.find((message) => message.role === 'user')?.content ?? '';
  const results = request.body.messages.filter((message) => message.role === 'tool').length;
  const readFirst = user.includes('read first');
  if (readFirst && results === 0) return { toolCalls: [{ id: 'call_read', name: 'read_skill', arguments: '{"slug":"run-literature-review"}' }] };
  if (results === (readFirst ? 1 : 0)) {
    const slug = readFirst ? 'restock-paper-after-reading' : 'restock-printer-paper';
    return { toolCalls: [{ id: 'call_learn', name: 'learn_skill', arguments: JSON.stringify({ slug, name: 'Restock printer paper', body: PLAYBOOK }) }] };
  }
  return { text: 'Ordered two boxes.' };
}

describe('LLM runtime learning', () => {
  let c: ChatFixture;
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm(script);
    c = await startChat({ config: { llm: { url: llm.url, model: 'test-model', apiKey: '' } } });
    await c.t.app.skills.upsert({
      slug: 'run-literature-review',
      frontmatter: { type: 'skill', name: 'Run a literature review', status: 'complete', tags: ['paper', 'research'], summary: 'Find, read and summarise the papers on a research question.' },
      body: '## [find] Step 1: Find the papers\n\nSearch the paper databases.\n\n## [read] Step 2: Read them\n\nSummarise each paper.\n',
    });
  });
  afterAll(async () => {
    await c.close();
    await llm.close();
  });

  const toolAnswer = (request: RecordedRequest | undefined, id: string) =>
    JSON.parse(request?.body.messages.find((message) => message.role === 'tool' && message.tool_call_id === id)?.content ?? 'null') as Record<string, unknown>;

  it('a skill offered on a word but never read does not cover the turn: the draft is stored as promised', async () => {
    const stream = await c.send('we are out of printer paper, order more paper');
    await stream.ended;
    const events = stream.frames().map((frame) => frame.event!);
    expect(llm.requests[0]?.body.messages[0]?.content).toContain('(/run-literature-review)'); // offered
    expect(toolAnswer(llm.requests[1], 'call_learn')).toMatchObject({ learned: 'restock-printer-paper' });
    expect(toolAnswer(llm.requests[1], 'call_learn').stored).toBeUndefined();
    expect(events.find((event) => event.type === 'skill_learned')?.content).toEqual({ slug: 'restock-printer-paper', name: 'Restock printer paper', stored: true });
    expect((await c.t.app.skills.get('restock-printer-paper', c.structure.id))?.frontmatter).toMatchObject({ status: 'draft', learned_by: 'agent' });
  });

  it('a turn that read a skill learns nothing, and learn_skill says so at once', async () => {
    const start = llm.requests.length;
    const stream = await c.send('order more printer paper, read first');
    await stream.ended;
    const events = stream.frames().map((frame) => frame.event!);
    const answer = toolAnswer(llm.requests[start + 2], 'call_learn');
    expect(answer).toMatchObject({ learned: 'restock-paper-after-reading', stored: false });
    expect(String(answer.reason)).toContain('run-literature-review (read it)');
    expect(events.find((event) => event.type === 'skill_learned')?.content).toEqual({
      slug: 'restock-paper-after-reading',
      name: 'Restock printer paper',
      stored: false,
      reason: 'the turn followed the skill run-literature-review (read it); only turns that no skill covers are learned',
    });
    expect(await c.t.app.skills.get('restock-paper-after-reading')).toBeUndefined();
  });
});
