/**
 * The plain-text printer of `org chat -m`: stdout carries the whole readable reply,
 * stderr the progress; learning is announced only as the server's outcome; a tool call
 * the turn ended without is said to have no result.
 */
import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../client/types.js';
import { createEventPrinter } from './chat-print.js';

function printAll(events: Omit<ChatEvent, 'timestamp'>[]) {
  const out: string[] = [];
  const err: string[] = [];
  let raw = '';
  const printer = createEventPrinter({
    output: { out: (line) => out.push(line), err: (line) => err.push(line) },
    write: (chunk) => {
      raw += chunk;
      const lines = raw.split('\n');
      raw = lines.pop() ?? '';
      out.push(...lines);
    },
  });
  for (const event of events) printer.print({ ...event, timestamp: '2026-01-01T00:00:00.000Z' } as ChatEvent);
  printer.finish();
  if (raw) out.push(raw);
  return { out, err };
}

describe('createEventPrinter', () => {
  it('puts step headings, text, decisions, outcome and summary on stdout, progress on stderr', () => {
    const { out, err } = printAll([
      { type: 'thought', content: 'Looking' },
      { type: 'tool_call', content: { tool: 'search_skills', args: { query: 'x' } } },
      { type: 'tool_result', content: { tool: 'search_skills', result: { matches: [] } } },
      { type: 'milestone', content: { title: 'Step 1: Assess' } },
      { type: 'text', content: 'Check the ' },
      { type: 'text', content: 'dashboard.' },
      { type: 'decision', content: { title: 'Declare SEV1', body: 'Declare SEV1 now.' } },
      { type: 'skill_learned', content: { slug: 'plan-offsite', name: 'Plan an offsite' } },
      { type: 'skill_learned', content: { slug: 'plan-offsite-2', name: 'Plan an offsite', stored: true } as never },
      { type: 'complete', content: { summary: 'Done', artifacts: ['report.md'] } },
    ]);
    expect(out).toEqual([
      '▸ Step 1: Assess',
      'Check the dashboard.',
      '◆ Decision: Declare SEV1 now.',
      '✎ learned a draft skill: plan-offsite-2 (Plan an offsite)',
      '  review it: org drafts approve plan-offsite-2   or the queue: org drafts',
      '✔ Done',
      'artifacts: report.md',
    ]);
    expect(err).toEqual(['· Looking', '→ search_skills {"query":"x"}', '← search_skills {"matches":[]}']);
  });

  it('prints a delegation on stdout as → <label> (<role_id>): <message>, and its outcome', () => {
    const out: string[] = [];
    const err: string[] = [];
    const printer = createEventPrinter({ output: { out: (line) => out.push(line), err: (line) => err.push(line) }, write: () => undefined, labelOf: (role) => (role === 'exec-cfo' ? 'Chief Financial Officer' : undefined) });
    for (const event of [
      { type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'exec-cfo', message: 'Close March', run_id: 'r1' } } },
      { type: 'tool_result', content: { tool: 'delegate', result: { run_id: 'r1', role_id: 'exec-cfo', status: 'complete', summary: 'Closed.', artifacts: [] } } },
      { type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'exec-nobody', message: 'Hi', run_id: null } } },
      { type: 'tool_result', content: { tool: 'delegate', result: { run_id: null, role_id: 'exec-nobody', status: 'error', summary: 'there is no node exec-nobody in Acme', artifacts: [] } } },
    ]) printer.print({ ...event, timestamp: '2026-01-01T00:00:00.000Z' } as ChatEvent);
    expect(out).toEqual([
      '→ Chief Financial Officer (exec-cfo): Close March',
      '← Chief Financial Officer (exec-cfo): ✔ Closed.',
      '→ exec-nobody: Hi',
      '← exec-nobody: ✖ there is no node exec-nobody in Acme',
    ]);
    expect(err).toEqual([]);
  });

  it('says why nothing was learned, and marks tool calls the turn ended without', () => {
    const { out, err } = printAll([
      { type: 'tool_call', content: { tool: 'tool_url', args: {} } },
      { type: 'skill_learned', content: { slug: 'x', name: 'X', stored: false, reason: 'the turn used the skill y' } as never },
      { type: 'error', content: { message: 'cancelled' } },
    ]);
    expect(out).toEqual(['✎ not learned "X": the turn used the skill y']);
    expect(err).toEqual(['→ tool_url {}', '⊘ tool_url: no result (the turn ended first)', '✖ error: cancelled']);
  });
});
