/**
 * The draft review queue (`org drafts`) with ink-testing-library: each key calls the
 * right action on the draft under the cursor (approve, edit, reject, undo, skip), the
 * counts follow, the preview is the rendered markdown, and a hundred drafts scroll.
 */
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { Skill, SkillListEntry } from '../src/client/types.js';
import { DraftsApp } from '../src/cli/ui/drafts/DraftsApp.js';
import { draftsReducer, draftToRestore, initialDraftsState } from '../src/cli/ui/drafts/state.js';
import type { DraftActions } from '../src/cli/ui/drafts/useDrafts.js';
import { waitFor } from './cli-helpers.js';

function entry(i: number): SkillListEntry {
  const slug = `draft-${String(i).padStart(3, '0')}`;
  return {
    slug,
    name: `Draft number ${i}`,
    category: 'operations',
    difficulty: 'medium',
    tags: [],
    summary: `Summary of ${slug}`,
    status: 'draft',
    learned_by: 'agent',
    learned_at: '2026-11-22T10:00:00.000Z',
    tool_url: null,
  };
}

function skill(slug: string, body = `## [first] Step 1: Do the **first** thing for ${slug}\n- a bullet\n`): Skill {
  return {
    slug,
    frontmatter: { type: 'skill', name: slug, category: 'operations', difficulty: 'medium', tags: [], status: 'draft', summary: '', learned_by: 'agent', learned_at: '2026-11-22T10:00:00.000Z', tool_url: null },
    body,
    steps: [{ id: 'first', n: 1, title: 'Do the first thing' }],
  };
}

/** Fake actions that record every call. */
function fakeActions(count: number) {
  const calls: string[] = [];
  const actions: DraftActions = {
    load: async () => Array.from({ length: count }, (_, i) => entry(i + 1)),
    preview: async (slug) => skill(slug),
    approve: async (slug) => void calls.push(`approve ${slug}`),
    reject: async (slug) => void calls.push(`reject ${slug}`),
    restore: async (slug) => void calls.push(`restore ${slug}`),
    edit: async (slug) => {
      calls.push(`edit ${slug}`);
      return skill(slug, '## [first] Step 1: Edited body\n');
    },
  };
  return { actions, calls };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function mount(count: number) {
  const { actions, calls } = fakeActions(count);
  let exited = 0;
  const app = render(<DraftsApp actions={actions} title="Demo" onExit={() => void exited++} />);
  cleanups.push(() => app.unmount());
  const frame = () => app.lastFrame() ?? '';
  const press = async (key: string, until: () => boolean, what: string) => {
    app.stdin.write(key);
    await waitFor(until, what);
  };
  return { app, calls, frame, press, exits: () => exited };
}

describe('DraftsApp', () => {
  it('shows counts, the list and the rendered preview of the draft under the cursor', async () => {
    const { frame } = mount(3);
    await waitFor(() => frame().includes('Do the first thing for draft-001'), 'the preview');
    expect(frame()).toContain('Drafts · Demo');
    expect(frame()).toContain('3 total · 3 to review · 0 approved · 0 rejected · 0 skipped');
    expect(frame()).toContain('❯   draft-001');
    expect(frame()).toContain('Summary of draft-001');
    expect(frame()).not.toContain('**first**'); // markdown is rendered, not shown raw
    expect(frame()).toContain('a approve · e edit · r reject');
  });

  it('keys call the right action on the right draft, and the counts follow', async () => {
    const { frame, press, calls, exits } = mount(5);
    await waitFor(() => frame().includes('draft-001') && frame().includes('Do the first'), 'the queue');

    await press('a', () => calls.includes('approve draft-001') && frame().includes('1 approved'), 'approve');
    expect(frame()).toContain('✓ draft-001');
    expect(frame()).toContain('❯   draft-002'); // moved on to the next draft to review

    await press('r', () => calls.includes('reject draft-002') && frame().includes('1 rejected'), 'reject');
    expect(frame()).toContain('✗ draft-002');

    await press('k', () => frame().includes('❯ ✗ draft-002'), 'cursor up');
    await press('u', () => calls.includes('restore draft-002') && frame().includes('0 rejected'), 'undo the reject');

    await press('j', () => frame().includes('❯   draft-003'), 'cursor down');
    await press('s', () => frame().includes('1 skipped'), 'skip');
    expect(calls.some((call) => call.includes('draft-003'))).toBe(false); // skip calls nothing

    await press('e', () => calls.includes('edit draft-004') && frame().includes('saved draft-004'), 'edit');
    // The edit's preview stays, even when the preview load begun by the skip lands after it.
    expect(frame()).toContain('Edited body');

    // An approved draft is decided: a and r do nothing on it.
    await press('\u001B[A', () => frame().includes('❯ → draft-003'), 'arrow up');
    await press('\u001B[A', () => frame().includes('❯   draft-002'), 'arrow up');
    await press('\u001B[A', () => frame().includes('❯ ✓ draft-001'), 'arrow up');
    await press('r', () => true, 'nothing');
    // A later key, drawn once handled: keys are handled in order, so the r came first.
    await press('j', () => frame().includes('❯   draft-002'), 'cursor down after r');
    expect(calls.filter((call) => call.includes('draft-001'))).toEqual(['approve draft-001']);

    expect(calls).toEqual(['approve draft-001', 'reject draft-002', 'restore draft-002', 'edit draft-004']);
    await press('q', () => exits() === 1, 'quit');
  });

  it('works with a hundred drafts: the list scrolls and the counts stay right', async () => {
    const { frame, press, calls } = mount(100);
    await waitFor(() => frame().includes('100 total · 100 to review'), 'the queue');
    expect(frame()).toContain('↓ 92 more');
    expect(frame()).not.toContain('draft-050');
    await press('\u001B[6~', () => frame().includes('❯   draft-009'), 'page down');
    for (const at of ['017', '025', '033', '041', '049']) await press('\u001B[6~', () => frame().includes(`❯   draft-${at}`), `page down to ${at}`);
    expect(frame()).toMatch(/↑ \d+ more/);
    await press('a', () => calls.includes('approve draft-049') && frame().includes('99 to review'), 'approve in the middle');
    expect(frame()).toContain('❯   draft-050');
  });
});

describe('draftsReducer', () => {
  it('skips to the next draft without a verdict, wrapping around', () => {
    let state = draftsReducer(initialDraftsState, { type: 'loaded', drafts: [entry(1), entry(2), entry(3)] });
    state = draftsReducer(state, { type: 'move', move: { type: 'end' } });
    state = draftsReducer(state, { type: 'decided', slug: 'draft-003', verdict: 'approved', text: '' });
    expect(state.index).toBe(0);
    state = draftsReducer(state, { type: 'decided', slug: 'draft-001', verdict: 'skipped', text: '' });
    expect(state.index).toBe(1);
  });

  it('u restores the draft under the cursor when rejected, else the latest rejection; the cursor goes back to it', () => {
    let state = draftsReducer(initialDraftsState, { type: 'loaded', drafts: [entry(1), entry(2), entry(3)] });
    expect(draftToRestore(state)).toBeUndefined();
    state = draftsReducer(state, { type: 'decided', slug: 'draft-001', verdict: 'rejected', text: '' });
    state = draftsReducer(state, { type: 'decided', slug: 'draft-002', verdict: 'rejected', text: '' });
    expect(state.index).toBe(2);
    expect(draftToRestore(state)).toBe('draft-002');
    state = draftsReducer(state, { type: 'undone', slug: 'draft-002', text: '' });
    expect([state.index, state.verdicts['draft-002']]).toEqual([1, undefined]);
    expect(draftToRestore(state)).toBe('draft-001');
    state = draftsReducer(state, { type: 'move', move: { type: 'up' } });
    expect(draftToRestore(state)).toBe('draft-001');
  });

  it('keeps an edit saved while the preview was loading: the load that lands after it is older', () => {
    let state = draftsReducer(initialDraftsState, { type: 'loaded', drafts: [entry(1)] });
    const edited = skill('draft-001', '## [first] Step 1: Edited body\n');
    state = draftsReducer(state, { type: 'edited', slug: 'draft-001', skill: edited, text: 'saved draft-001' });
    state = draftsReducer(state, { type: 'preview', slug: 'draft-001', preview: { skill: skill('draft-001') } });
    expect(state.previews['draft-001']).toEqual({ skill: edited });
  });
});
