/**
 * What a turn's end and its side results look like in the chat: a stopped run is a
 * neutral note naming who stopped it, a learned skill shows only the draft the stream
 * says was stored (or why none was), a skill search lists its matches on the search
 * tester's score scale, and replies render GitHub-flavoured markdown (tables in a
 * keyboard-reachable scroll box, never raw HTML).
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../src/api/types';
import { matchesOf, toBlocks } from '../src/chat/blocks';
import { EventList } from '../src/chat/EventList';
import { formatScore } from '../src/ui/Score';
import { renderLoaded } from './prerender';

const SID = '7d3c1a8e-2b4f-4c6d-9e0a-1b2c3d4e5f60';
const T = '2026-11-22T10:00:00.000Z';
const ev = (event: { type: string; content: unknown }): ChatEvent => ({ ...event, timestamp: T }) as ChatEvent;
const render = (events: ChatEvent[], viewer?: string) => renderToStaticMarkup(<EventList events={events} structureId={SID} viewer={viewer} />);

describe('a stopped run', () => {
  it('is a neutral note naming who stopped it ("you" for the reader), never the red error', () => {
    const stopped = [ev({ type: 'error', content: { message: 'cancelled', cancelled_by: 'ada@example.com' } })];
    expect(toBlocks(stopped)).toEqual([{ kind: 'stopped', key: 'e0', by: 'ada@example.com' }]);
    const mine = render(stopped, 'ada@example.com');
    expect(mine).toContain('class="ev ev-stopped"');
    expect(mine).toContain('Stopped by you.');
    expect(mine).not.toContain('ev-error');
    expect(render(stopped, 'bob@example.com')).toContain('Stopped by ada@example.com.');
    expect(render([ev({ type: 'error', content: { message: 'cancelled' } })])).toContain('This turn was stopped.');
  });
});

describe('learned skills', () => {
  it('link only a draft the stream says was stored', () => {
    const html = render([ev({ type: 'skill_learned', content: { slug: 'book-offsite-2', name: 'Book an offsite', stored: true } })]);
    expect(html).toContain(`href="#/w/${SID}/skills/drafts/book-offsite-2"`);
    expect(html).toContain('Skill learned');
  });

  it('say why nothing was stored, with no link to a draft', () => {
    const html = render([ev({ type: 'skill_learned', content: { slug: 'book-offsite', name: 'Book an offsite', stored: false, reason: 'the turn used the skill plan-event' } })]);
    expect(html).toContain('Not stored');
    expect(html).toContain('the turn used the skill plan-event');
    expect(html).not.toContain('/skills/drafts/book-offsite');
    expect(html).not.toContain('Skill learned');
  });

  it('do not claim a draft for a stream that does not say (older runs): they point at the queue', () => {
    const html = render([ev({ type: 'skill_learned', content: { slug: 'echo', name: 'Echo' } })]);
    expect(html).toContain(`href="#/w/${SID}/skills/drafts"`);
    expect(html).not.toContain('/skills/drafts/echo');
  });
});

describe('skill search results', () => {
  const search = [
    ev({ type: 'tool_call', content: { tool: 'search_skills', args: { query: 'late invoices' } } }),
    ev({ type: 'tool_result', content: { tool: 'search_skills', result: { matches: [{ slug: 'chase-invoices', name: 'Chase invoices', score: 7.4567 }, { slug: 'close-month', name: 'Close the month', score: 3.2 }] } } }),
  ];

  it('list the matches with scores formatted as the search tester formats them', () => {
    const html = render(search);
    expect(html).toContain('Skills matched');
    expect(html).toContain(`href="#/w/${SID}/skills/s/chase-invoices"`);
    expect(html).toContain(`>${formatScore(7.4567)}<`);
    expect(formatScore(7.4567)).toBe('7.46');
    // The best match fills the bar; the other is sized against it.
    expect(html).toContain('width:100%');
    expect(html).toMatch(/width:42\.9\d*%/);
    expect(html).not.toContain('ev-tool-result');
  });

  it('keep a result of another shape as JSON', () => {
    expect(matchesOf({ matches: [{ slug: 'x' }] })).toBeUndefined();
    expect(matchesOf('nothing')).toBeUndefined();
    expect(matchesOf({ matches: [] })).toEqual([]);
  });
});

describe('markdown in replies', () => {
  it('renders GFM tables in a focusable scroll box named by its headers, strikethrough and task lists', async () => {
    const html = await renderLoaded(<EventList events={[ev({ type: 'text', content: '| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~\n\n- [x] done\n' })]} structureId={SID} />);
    expect(html).toContain('<div class="table-scroll" tabindex="0" role="group" aria-label="Table: a, b"><table>');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('<del>old</del>');
    expect(html).toContain('type="checkbox"');
    expect(html).not.toContain('|---|');
  });
});
