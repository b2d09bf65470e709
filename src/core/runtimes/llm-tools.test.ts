import { describe, expect, it } from 'vitest';
import type { EventInput } from '../chat/types.js';
import { fakeTools } from '../../../test/helpers/runtime-contract.js';
import { LLM_TOOLS, executeTool, guessContentType } from './llm-tools.js';

function context() {
  const events: EventInput[] = [];
  const artifacts: string[] = [];
  const tools = fakeTools();
  return { events, artifacts, tools, ctx: { tools, artifacts, emit: (event: EventInput) => Promise.resolve(void events.push(event)) } };
}

describe('LLM tools', () => {
  it('declares eight function tools with required parameters', () => {
    expect(LLM_TOOLS.map((tool) => [tool.function.name, tool.function.parameters.required])).toEqual([
      ['search_skills', ['query']],
      ['read_skill', ['slug']],
      ['write_artifact', ['name', 'content']],
      ['record_decision', ['title', 'body']],
      ['flag_milestone', ['title']],
      ['learn_skill', ['slug', 'name', 'body']],
      ['list_peers', []],
      ['delegate', ['role_id', 'message']],
    ]);
  });

  it('list_peers and delegate go to the turn: the node and its peers, the delegated turn\'s outcome (or why it was refused)', async () => {
    const { ctx, tools } = context();
    expect(await executeTool('list_peers', {}, ctx)).toMatchObject({ self: { role_id: 'ceo' }, peers: [{ role_id: 'acme-cto', parent: 'ceo' }] });
    expect(await executeTool('delegate', { role_id: 'acme-cto', message: 'Plan the migration' }, ctx)).toMatchObject({ role_id: 'acme-cto', status: 'complete', summary: 'acme-cto did: Plan the migration' });
    expect(await executeTool('delegate', { role_id: 'ceo', message: 'me' }, ctx)).toMatchObject({ run_id: null, status: 'error', refused: 'self' });
    // A missing argument is refused by the tool's schema before anything is delegated.
    const before = tools.delegations.length;
    expect(await executeTool('delegate', { message: 'who?' }, ctx)).toEqual({ error: 'invalid arguments for delegate: missing "role_id"' });
    expect(tools.delegations).toHaveLength(before);
  });

  it('refuses a search limit outside the schema and reports a missing skill', async () => {
    const { ctx, tools } = context();
    expect(await executeTool('search_skills', { query: 'q', limit: 500 }, ctx)).toEqual({ error: 'invalid arguments for search_skills: "limit" must be <= 10' });
    expect(await executeTool('search_skills', { query: 'q', limit: 3 }, ctx)).toMatchObject({ matches: [{ slug: 'weekly-report' }] });
    expect(tools.searches).toEqual(['q']);
    expect(await executeTool('read_skill', { slug: 'nope' }, ctx)).toEqual({ error: 'no skill named "nope"' });
  });

  it('records artifact names once, under the stored name', async () => {
    const { ctx, artifacts } = context();
    await executeTool('write_artifact', { name: 'a.json', content: '{}' }, ctx);
    await executeTool('write_artifact', { name: 'a.json', content: '[]', content_type: 'application/json' }, ctx);
    expect(artifacts).toEqual(['a.json', 'a-2.json']);
  });

  it('rejects arguments of the wrong type', async () => {
    const { ctx, events } = context();
    expect(await executeTool('record_decision', { title: 3 }, ctx)).toEqual({ error: 'invalid arguments for record_decision: missing "body"; "title" must be string' });
    expect(await executeTool('learn_skill', { slug: 's', name: 'n', body: 'b', summary: 5 }, ctx)).toEqual({ error: 'invalid arguments for learn_skill: "summary" must be string' });
    expect(await executeTool('record_decision', { title: 'Ship', body: '' }, ctx)).toEqual({ error: 'invalid arguments for record_decision: "body" must not have fewer than 1 characters' });
    expect(await executeTool('flag_milestone', { title: 'x', colour: 'red' }, ctx)).toEqual({ error: 'invalid arguments for flag_milestone: unknown "colour"' });
    expect(events).toEqual([]);
  });

  it('reports a failing service as an error result', async () => {
    const { ctx, tools } = context();
    tools.writeArtifact = () => Promise.reject(new Error('shelf is full'));
    expect(await executeTool('write_artifact', { name: 'x.txt', content: 'x' }, ctx)).toEqual({ error: 'write_artifact failed: shelf is full' });
  });

  it('guesses content types from names', () => {
    expect(guessContentType('r.MD')).toBe('text/markdown');
    expect(guessContentType('data.csv')).toBe('text/csv');
    expect(guessContentType('noext')).toBe('text/plain');
  });
});
