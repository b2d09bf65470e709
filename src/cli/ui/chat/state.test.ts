import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../../client/types.js';
import { chatReducer, initialChatState, type ChatAction, type ChatState } from './state.js';

const at = '2026-11-22T10:00:00.000Z';
const ev = (event: Omit<ChatEvent, 'timestamp'>): ChatAction => ({ type: 'event', event: { ...event, timestamp: at } as ChatEvent });
const run = (...actions: ChatAction[]): ChatState => actions.reduce(chatReducer, initialChatState);

describe('chatReducer', () => {
  it('merges streamed text into one entry until another event comes', () => {
    const state = run(
      { type: 'sent', text: 'hi', attachments: [] },
      ev({ type: 'text', content: 'Hel' }),
      ev({ type: 'text', content: 'lo' }),
      ev({ type: 'milestone', content: { title: 'M' } }),
      ev({ type: 'text', content: 'again' }),
    );
    expect(state.entries.map((e) => e.kind)).toEqual(['user', 'text', 'milestone', 'text']);
    expect(state.entries[1]).toMatchObject({ text: 'Hello' });
  });

  it('completes the open tool call of the same tool with its result', () => {
    const state = run(
      { type: 'sent', text: 'hi', attachments: [] },
      ev({ type: 'tool_call', content: { tool: 'a', args: 1 } }),
      ev({ type: 'tool_call', content: { tool: 'b', args: 2 } }),
      ev({ type: 'tool_result', content: { tool: 'a', result: 'ra' } }),
    );
    expect(state.entries.slice(1)).toMatchObject([
      { kind: 'tool', tool: 'a', status: 'done', result: 'ra' },
      { kind: 'tool', tool: 'b', status: 'running' },
    ]);
    const ended = chatReducer(state, { type: 'run-ended' });
    expect(ended.entries.at(-1)).toMatchObject({ kind: 'tool', tool: 'b', status: 'ended' });
    expect(ended.run).toBeNull();
    expect(ended.liveFrom).toBe(ended.entries.length);
  });

  it('shows a delegation as one entry, completed by its outcome (refused ones at once), and ended without one when the turn ends first', () => {
    const run1 = '5f0c8a9e-3c1f-4b7e-9d55-0e9a8f6d2b11';
    const state = run(
      { type: 'sent', text: 'close', attachments: [] },
      ev({ type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'exec-cfo', message: 'Close March', run_id: run1 } } }),
      ev({ type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'exec-ceo', message: 'me', run_id: null } } }),
      ev({ type: 'tool_result', content: { tool: 'delegate', result: { run_id: null, role_id: 'exec-ceo', status: 'error', summary: 'exec-ceo cannot delegate to itself', artifacts: [] } } }),
      ev({ type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'exec-cto', message: 'Plan', run_id: '6f0c8a9e-3c1f-4b7e-9d55-0e9a8f6d2b11' } } }),
      ev({ type: 'tool_result', content: { tool: 'delegate', result: { run_id: run1, role_id: 'exec-cfo', status: 'complete', summary: 'Closed', artifacts: [] } } }),
    );
    expect(state.entries.slice(1)).toMatchObject([
      { kind: 'delegate', roleId: 'exec-cfo', message: 'Close March', runId: run1, status: 'done', outcome: { status: 'complete', summary: 'Closed' } },
      { kind: 'delegate', roleId: 'exec-ceo', runId: null, status: 'done', outcome: { status: 'error', summary: 'exec-ceo cannot delegate to itself' } },
      { kind: 'delegate', roleId: 'exec-cto', status: 'running' },
    ]);
    expect(chatReducer(state, { type: 'run-ended' }).entries.at(-1)).toMatchObject({ kind: 'delegate', roleId: 'exec-cto', status: 'ended' });
  });

  it('keeps the running turn live and settles it when it ends', () => {
    let state = run({ type: 'notice', text: 'title', tone: 'title' }, { type: 'sent', text: 'hi', attachments: ['a.txt'] });
    expect(state.liveFrom).toBe(2);
    expect(state.run).toEqual({ cancelling: false });
    state = chatReducer(state, { type: 'run-started', runId: 'r1' });
    state = chatReducer(state, { type: 'cancel-requested' });
    expect(state.run).toEqual({ id: 'r1', cancelling: true });
    state = chatReducer(state, ev({ type: 'error', content: { message: 'cancelled' } }));
    state = chatReducer(state, { type: 'run-ended' });
    expect(state.entries.at(-1)).toMatchObject({ kind: 'error', message: 'cancelled' });
    expect(state.liveFrom).toBe(state.entries.length);
  });

  it('clears the reconnecting mark at the next event and empties pending attachments on send', () => {
    let state = run({ type: 'attached', attachment: { name: 'a.txt', path: '/a.txt', size: 3 } });
    expect(state.pending).toHaveLength(1);
    state = chatReducer(state, { type: 'sent', text: 'x', attachments: ['a.txt'] });
    expect(state.pending).toHaveLength(0);
    state = chatReducer(state, { type: 'reconnecting', attempt: 2 });
    expect(state.run?.reconnecting).toBe(2);
    state = chatReducer(state, ev({ type: 'thought', content: 't' }));
    expect(state.run?.reconnecting).toBeUndefined();
  });
});
