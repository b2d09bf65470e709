/**
 * Component tests of the chat event rendering: EventList rendered to static markup per
 * event type (no DOM needed), plus the pure pieces behind it — block grouping, the chat
 * reducer that merges live events into history, and the draft picker of learned-skill
 * links. (Reading the stream is the shared client's, tested in src/client.)
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ChatEvent, HistoryMessage, SkillEntry } from '../src/api/types';
import { toBlocks } from '../src/chat/blocks';
import { EventList } from '../src/chat/EventList';
import { chatReducer, initialChat } from '../src/chat/reducer';
import { pickDraft } from '../src/skills/DraftsQueue';
import { renderLoaded } from './prerender';

const SID = '7d3c1a8e-2b4f-4c6d-9e0a-1b2c3d4e5f60';
const T = '2026-11-22T10:00:00.000Z';
const ev = <E extends ChatEvent>(event: Omit<E, 'timestamp'>): ChatEvent => ({ ...event, timestamp: T }) as ChatEvent;

function render(events: ChatEvent[], running = false): string {
  return renderToStaticMarkup(<EventList events={events} structureId={SID} running={running} onDownload={() => undefined} />);
}

/** The markup of the one block an event list renders. */
function only(html: string): string {
  const inner = /^<div class="events">([\s\S]*)<\/div>$/.exec(html);
  expect(inner, html).not.toBeNull();
  return inner![1]!;
}

describe('EventList renders each event type', () => {
  it('folds a thought: a closed <details> with a one-line preview', () => {
    const html = only(render([ev({ type: 'thought', content: 'Reading the request for the CFO.' })]));
    expect(html).toMatch(/^<details class="ev ev-thought">/);
    expect(html).not.toContain(' open');
    expect(html).toContain('<summary>');
    expect(html).toContain('Thought');
    expect(html).toContain('Reading the request for the CFO.');
  });

  it('streams text: consecutive text events become one markdown block', async () => {
    const html = only(
      await renderLoaded(<EventList events={[ev({ type: 'text', content: 'You said: ' }), ev({ type: 'text', content: '**hello** ' }), ev({ type: 'text', content: 'world' })]} structureId={SID} />),
    );
    expect(html.match(/class="ev ev-text"/g)).toHaveLength(1);
    expect(html).toContain('<p>You said: <strong>hello</strong> world</p>');
  });

  it('never renders raw HTML from agent text', async () => {
    const html = await renderLoaded(<EventList events={[ev({ type: 'text', content: 'hi <img src=x onerror=alert(1)> <script>alert(2)</script>' })]} structureId={SID} />);
    expect(html).toContain('<p>hi');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
  });

  it('pairs a tool_call with its tool_result in one collapsible block', () => {
    const html = only(
      render([
        ev({ type: 'tool_call', content: { tool: 'word_count', args: { text: 'hello world' } } }),
        ev({ type: 'tool_result', content: { tool: 'word_count', result: { words: 2 } } }),
      ]),
    );
    expect(html.match(/<details/g)).toHaveLength(1);
    expect(html).toMatch(/^<details class="ev ev-tool ev-tool-done">/);
    expect(html).toContain('<code class="ev-tool-name">word_count</code>');
    expect(html).toContain('Arguments');
    expect(html).toContain('&quot;text&quot;: &quot;hello world&quot;');
    expect(html).toContain('Result');
    expect(html).toContain('&quot;words&quot;: 2');
    expect(html).toContain('>done<');
  });

  it('shows an open tool call as running while the turn runs', () => {
    const html = render([ev({ type: 'tool_call', content: { tool: 'search_skills', args: { query: 'invoices' } } })], true);
    expect(html).toContain('ev-tool-open');
    expect(html).toContain('>running<');
    expect(html).not.toContain('Result');
  });

  it('marks a decision with its title and body', () => {
    const html = only(render([ev({ type: 'decision', content: { title: 'Hire two engineers', body: 'Budget approved by the CFO.' } })]));
    expect(html).toMatch(/^<div class="ev ev-decision" role="note">/);
    expect(html).toContain('Decision');
    expect(html).toContain('<strong>Hire two engineers</strong>');
    expect(html).toContain('Budget approved by the CFO.');
  });

  it('marks a milestone', () => {
    const html = only(render([ev({ type: 'milestone', content: { title: 'Read the request' } })]));
    expect(html).toMatch(/^<div class="ev ev-milestone">/);
    expect(html).toContain('Milestone');
    expect(html).toContain('Read the request');
  });

  it('links a stored learned skill to its draft in the review queue', () => {
    const html = only(render([ev({ type: 'skill_learned', content: { slug: 'echo-a-message', name: 'Echo a message', stored: true } as never })]));
    expect(html).toContain('ev-learned');
    expect(html).toContain('Echo a message');
    expect(html).toContain(`href="#/w/${SID}/skills/drafts/echo-a-message"`);
  });

  it('shows the summary of complete with a download button per artifact', () => {
    const html = only(render([ev({ type: 'complete', content: { summary: 'Echoed 2 word(s).', artifacts: ['report.md', 'data.csv'] } })]));
    expect(html).toMatch(/^<div class="ev ev-complete">/);
    expect(html).toContain('<p class="ev-summary">Echoed 2 word(s).</p>');
    expect(html.match(/<button type="button"[^>]*>↓ /g)).toHaveLength(2);
    expect(html).toContain('report.md');
    expect(html).toContain('data.csv');
  });

  it('shows an error in red (the error style, announced as an alert)', () => {
    const html = only(render([ev({ type: 'error', content: { message: 'the container stopped answering' } })]));
    expect(html).toMatch(/^<div class="ev ev-error" role="alert">/);
    expect(html).toContain('the container stopped answering');
  });

  it('keeps the order of a whole turn', () => {
    const html = render([
      ev({ type: 'thought', content: 'thinking' }),
      ev({ type: 'tool_call', content: { tool: 't', args: null } }),
      ev({ type: 'tool_result', content: { tool: 't', result: 'ok' } }),
      ev({ type: 'text', content: 'answer' }),
      ev({ type: 'milestone', content: { title: 'done' } }),
      ev({ type: 'complete', content: { summary: 'all good', artifacts: [] } }),
    ]);
    const order = [...html.matchAll(/class="ev (ev-[a-z]+)/g)].map((match) => match[1]);
    expect(order).toEqual(['ev-thought', 'ev-tool', 'ev-text', 'ev-milestone', 'ev-complete']);
  });
});

describe('toBlocks', () => {
  it('pairs results with the earliest open call of the same tool and keeps orphans', () => {
    const blocks = toBlocks([
      ev({ type: 'tool_call', content: { tool: 'a', args: 1 } }),
      ev({ type: 'tool_call', content: { tool: 'b', args: 2 } }),
      ev({ type: 'tool_call', content: { tool: 'a', args: 3 } }),
      ev({ type: 'tool_result', content: { tool: 'a', result: 'first' } }),
      ev({ type: 'tool_result', content: { tool: 'c', result: 'orphan' } }),
    ]);
    expect(blocks.map((block) => (block.kind === 'tool' ? [block.tool, block.args, block.result ?? null, block.hasCall] : block.kind))).toEqual([
      ['a', 1, 'first', true],
      ['b', 2, null, true],
      ['a', 3, null, true],
      ['c', undefined, 'orphan', false],
    ]);
  });
});

const message = (over: Partial<HistoryMessage>): HistoryMessage => ({
  id: 'm',
  run_id: 'r',
  sender: 'agent',
  text: '',
  attachments: [],
  events: [],
  summary: null,
  artifacts: [],
  status: 'running',
  created_at: T,
  completed_at: null,
  ...over,
});

describe('chatReducer', () => {
  it('shows history newest at the bottom and prepends older pages', () => {
    let state = chatReducer(initialChat, { type: 'newest', page: [message({ id: 'b', created_at: '2026-11-22T10:00:02.000Z' }), message({ id: 'a', sender: 'user', created_at: '2026-11-22T10:00:01.000Z' })], limit: 2, replace: true });
    expect(state.messages.map((m) => m.id)).toEqual(['a', 'b']);
    expect(state.hasMore).toBe(true);
    state = chatReducer(state, { type: 'older', page: [message({ id: 'z', created_at: '2026-11-22T09:00:00.000Z' })], limit: 2 });
    expect(state.messages.map((m) => m.id)).toEqual(['z', 'a', 'b']);
    expect(state.hasMore).toBe(false);
  });

  it('appends live events to the running message and completes it on the terminal event', () => {
    let state = chatReducer(initialChat, { type: 'newest', page: [message({ id: 'b', run_id: 'run-1' })], limit: 50, replace: true });
    state = chatReducer(state, { type: 'event', runId: 'run-1', event: ev({ type: 'text', content: 'hi' }) });
    state = chatReducer(state, { type: 'event', runId: 'run-1', event: ev({ type: 'complete', content: { summary: 'done', artifacts: ['a.md'] } }) });
    expect(state.messages[0]).toMatchObject({ status: 'complete', summary: 'done', artifacts: ['a.md'], completed_at: T });
    expect(state.messages[0]!.events.map((e) => e.type)).toEqual(['text', 'complete']);
  });

  it('replaces local placeholders with the stored messages of the same run', () => {
    let state = chatReducer(initialChat, {
      type: 'sent',
      user: message({ id: 'local-user-r1', run_id: 'r1', sender: 'user', status: 'complete' }),
      agent: message({ id: 'local-agent-r1', run_id: 'r1' }),
    });
    state = chatReducer(state, {
      type: 'newest',
      page: [message({ id: 'agent-1', run_id: 'r1', status: 'complete' }), message({ id: 'user-1', run_id: 'r1', sender: 'user', status: 'complete' })],
      limit: 50,
    });
    expect(state.messages.map((m) => m.id)).toEqual(['user-1', 'agent-1']);
  });
});

describe('pickDraft', () => {
  const draft = (slug: string, learned_at = T): SkillEntry => ({ slug, name: slug, category: '', difficulty: 'medium', tags: [], summary: '', status: 'draft', learned_by: 'agent', learned_at, tool_url: null });
  it('finds the exact slug, else the newest suffixed one a taken slug got', () => {
    const drafts = [draft('other'), draft('echo-a-message-2', '2026-11-22T10:00:00.000Z'), draft('echo-a-message-3', '2026-11-22T11:00:00.000Z')];
    expect(pickDraft(drafts, 'echo-a-message')?.slug).toBe('echo-a-message-3');
    expect(pickDraft([...drafts, draft('echo-a-message')], 'echo-a-message')?.slug).toBe('echo-a-message');
    expect(pickDraft(drafts, undefined)?.slug).toBe('other');
  });
});
