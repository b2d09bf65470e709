/**
 * The draft review queue as a pure reducer: the drafts, the cursor, each draft's
 * verdict, previews as they load, and the counts shown in the header.
 */
import type { Skill, SkillListEntry } from '../../../client/types.js';
import { moveCursor, type ListMove } from '../list.js';

/** What happened to a draft in this session. */
export type Verdict = 'approved' | 'rejected' | 'skipped';

/** A loaded preview, or why it failed. */
export type Preview = { skill: Skill } | { error: string };

/** The queue's state. */
export interface DraftsState {
  loading: boolean;
  drafts: SkillListEntry[];
  index: number;
  verdicts: Record<string, Verdict>;
  /** Drafts rejected in this session and not restored, the latest last: what `u` restores once the cursor has moved on. */
  rejected?: string[];
  previews: Record<string, Preview>;
  /** The slug an action is running on, and which. */
  busy?: { slug: string; what: string };
  message?: { text: string; tone: 'info' | 'error' };
}

/** What can happen in the queue. */
export type DraftsAction =
  | { type: 'loaded'; drafts: SkillListEntry[] }
  | { type: 'move'; move: ListMove }
  | { type: 'preview'; slug: string; preview: Preview }
  | { type: 'busy'; slug: string; what: string }
  | { type: 'decided'; slug: string; verdict: Verdict; text: string }
  | { type: 'undone'; slug: string; text: string }
  | { type: 'edited'; slug: string; skill?: Skill; text: string }
  | { type: 'failed'; text: string };

/** The state before loading. */
export const initialDraftsState: DraftsState = { loading: true, drafts: [], index: 0, verdicts: {}, previews: {} };

/** Counts for the header. */
export function draftCounts(state: DraftsState): { total: number; approved: number; rejected: number; skipped: number; pending: number } {
  const verdicts = Object.values(state.verdicts);
  const count = (verdict: Verdict) => verdicts.filter((v) => v === verdict).length;
  const approved = count('approved');
  const rejected = count('rejected');
  const skipped = count('skipped');
  return { total: state.drafts.length, approved, rejected, skipped, pending: state.drafts.length - approved - rejected - skipped };
}

/** The draft under the cursor. */
export function currentDraft(state: DraftsState): SkillListEntry | undefined {
  return state.drafts[state.index];
}

/** The index of the next draft without a verdict after `from` (wrapping), else `from`. */
function nextPending(state: DraftsState, verdicts: Record<string, Verdict>, from: number): number {
  const n = state.drafts.length;
  for (let step = 1; step <= n; step++) {
    const i = (from + step) % n;
    const draft = state.drafts[i];
    if (draft && !verdicts[draft.slug]) return i;
  }
  return from;
}

/**
 * The draft `u` restores: the one under the cursor when it was rejected, else the one
 * rejected last (the cursor moves on after a reject, and the message says "press u").
 */
export function draftToRestore(state: DraftsState): string | undefined {
  const here = currentDraft(state);
  if (here && state.verdicts[here.slug] === 'rejected') return here.slug;
  return state.rejected?.at(-1);
}

/** The reducer of the queue. */
export function draftsReducer(state: DraftsState, action: DraftsAction): DraftsState {
  switch (action.type) {
    case 'loaded':
      return { ...state, loading: false, drafts: action.drafts, index: 0 };
    case 'move':
      return { ...state, index: moveCursor({ index: state.index, size: state.drafts.length }, action.move).index };
    case 'preview':
      // Loaded only where none was shown: one already there came from an edit saved
      // while this load was under way, and is newer than what the load read.
      if (state.previews[action.slug] !== undefined) return state;
      return { ...state, previews: { ...state.previews, [action.slug]: action.preview } };
    case 'busy':
      return { ...state, busy: { slug: action.slug, what: action.what } };
    case 'decided': {
      const verdicts = { ...state.verdicts, [action.slug]: action.verdict };
      const at = state.drafts.findIndex((d) => d.slug === action.slug);
      const { busy: _done, ...rest } = state;
      const rejected = action.verdict === 'rejected' ? [...(state.rejected ?? []).filter((slug) => slug !== action.slug), action.slug] : state.rejected;
      return { ...rest, verdicts, ...(rejected ? { rejected } : {}), index: nextPending(state, verdicts, at < 0 ? state.index : at), message: { text: action.text, tone: 'info' } };
    }
    case 'undone': {
      const { [action.slug]: _gone, ...verdicts } = state.verdicts;
      const { busy: _done, ...rest } = state;
      // The cursor goes back to the restored draft, to be decided again.
      const at = state.drafts.findIndex((d) => d.slug === action.slug);
      const rejected = (state.rejected ?? []).filter((slug) => slug !== action.slug);
      return { ...rest, verdicts, rejected, index: at < 0 ? state.index : at, message: { text: action.text, tone: 'info' } };
    }
    case 'edited': {
      const { busy: _done, ...rest } = state;
      const previews = action.skill ? { ...state.previews, [action.slug]: { skill: action.skill } } : state.previews;
      const drafts = action.skill
        ? state.drafts.map((d) => (d.slug === action.slug ? { ...d, name: action.skill!.frontmatter.name, summary: action.skill!.frontmatter.summary } : d))
        : state.drafts;
      return { ...rest, drafts, previews, message: { text: action.text, tone: 'info' } };
    }
    case 'failed': {
      const { busy: _done, ...rest } = state;
      return { ...rest, loading: false, message: { text: action.text, tone: 'error' } };
    }
  }
}
