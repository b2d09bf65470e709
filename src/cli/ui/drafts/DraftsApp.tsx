/**
 * `org drafts`: the review queue of draft skills. A scrolling list (fine with hundreds),
 * the rendered preview of the draft under the cursor, counts, and one key per action:
 * a approve · e edit · r reject · u undo a reject · s skip · q quit.
 */
import { Box, Text } from 'ink';
import { useMemo } from 'react';
import { renderMarkdown } from '../../markdown.js';
import { KeyboardRoot, useKeys } from '../keyboard.js';
import { perKey } from '../keys.js';
import { visibleWindow } from '../list.js';
import { useLatestReducer } from '../useLatestReducer.js';
import { currentDraft, draftCounts, draftsReducer, draftToRestore, initialDraftsState, type Preview, type Verdict } from './state.js';
import { useDrafts, type DraftActions } from './useDrafts.js';

/** Props of {@link DraftsApp}. */
export interface DraftsAppProps {
  actions: DraftActions;
  /** Shown in the header, e.g. the structure's name. */
  title: string;
  onExit: () => void;
  /** Rows of the list (default 8). */
  listHeight?: number;
  /** Lines of the preview (default 18). */
  previewLines?: number;
  /** Width the preview is reflowed to (default 80). */
  width?: number;
}

const MARK: Record<Verdict, string> = { approved: '✓', rejected: '✗', skipped: '→' };
const COLOR: Record<Verdict, string> = { approved: 'green', rejected: 'red', skipped: 'gray' };

/** The preview of a draft as terminal lines (markdown rendered). */
function previewLinesOf(preview: Preview | undefined, width: number): string[] {
  if (!preview) return ['loading preview…'];
  if ('error' in preview) return [`preview failed: ${preview.error}`];
  return renderMarkdown(preview.skill.body, width).split('\n');
}

/** The review queue. */
export function DraftsApp(props: DraftsAppProps) {
  return (
    <KeyboardRoot>
      <DraftsScreen {...props} />
    </KeyboardRoot>
  );
}

/** The queue itself: list, preview and the keys that act on the draft under the cursor. */
function DraftsScreen({ actions, title, onExit, listHeight = 8, previewLines = 18, width = 80 }: DraftsAppProps) {
  const [state, dispatch, latest] = useLatestReducer(draftsReducer, initialDraftsState);
  const act = useDrafts(actions, state, dispatch);
  const draft = currentDraft(state);
  const preview = draft ? state.previews[draft.slug] : undefined;
  const previewRows = useMemo(() => previewLinesOf(preview, width), [preview, width]);

  useKeys(perKey((input, key) => {
    if (input === 'q' || key.escape || (key.ctrl && input === 'c')) return onExit();
    if (key.upArrow || input === 'k') return dispatch({ type: 'move', move: { type: 'up' } });
    if (key.downArrow || input === 'j') return dispatch({ type: 'move', move: { type: 'down' } });
    if (key.pageUp) return dispatch({ type: 'move', move: { type: 'page-up', page: listHeight } });
    if (key.pageDown) return dispatch({ type: 'move', move: { type: 'page-down', page: listHeight } });
    // The state after every key of this burst so far, not the one last rendered.
    const now = latest();
    const target = currentDraft(now);
    if (!target || now.busy) return;
    if (input === 'u') {
      const undo = draftToRestore(now);
      if (undo) void act.restore(undo);
      return;
    }
    const decided = now.verdicts[target.slug];
    if (decided === 'approved' || decided === 'rejected') return; // already decided
    if (input === 'a') void act.approve(target.slug);
    else if (input === 'r') void act.reject(target.slug);
    else if (input === 'e') void act.edit(target.slug);
    else if (input === 's') act.skip(target.slug);
  }));

  if (state.loading) return <Text dimColor>loading drafts…</Text>;
  const counts = draftCounts(state);
  const header = (
    <Text>
      <Text bold>Drafts · {title}</Text>
      <Text dimColor>
        {'  '}
        {counts.total} total · {counts.pending} to review · <Text color="green">{counts.approved} approved</Text> · <Text color="red">{counts.rejected} rejected</Text> ·{' '}
        {counts.skipped} skipped
      </Text>
    </Text>
  );
  if (state.drafts.length === 0) {
    return (
      <Box flexDirection="column">
        {header}
        <Text>{state.message?.tone === 'error' ? <Text color="red">{state.message.text}</Text> : 'No drafts to review. Agents write drafts when they succeed at something no skill covers.'}</Text>
        <Text dimColor>q quit</Text>
      </Box>
    );
  }

  const { start, end } = visibleWindow(state.index, state.drafts.length, listHeight);

  return (
    <Box flexDirection="column">
      {header}
      {start > 0 ? <Text dimColor>  ↑ {start} more</Text> : null}
      {state.drafts.slice(start, end).map((entry, offset) => {
        const i = start + offset;
        const mark = state.verdicts[entry.slug];
        return (
          <Text key={entry.slug} {...(i === state.index ? { color: 'cyan' } : {})}>
            {i === state.index ? '❯ ' : '  '}
            {mark ? <Text color={COLOR[mark]}>{MARK[mark]} </Text> : '  '}
            {entry.slug}
            <Text dimColor>  {entry.name}</Text>
          </Text>
        );
      })}
      {end < state.drafts.length ? <Text dimColor>  ↓ {state.drafts.length - end} more</Text> : null}
      <Box flexDirection="column" borderStyle="round" borderColor="gray" paddingX={1}>
        {draft ? (
          <Text bold>
            {draft.name} <Text dimColor>({draft.slug}{draft.category ? ` · ${draft.category}` : ''}{draft.learned_by ? ` · learned by ${draft.learned_by}` : ''})</Text>
          </Text>
        ) : null}
        {draft?.summary ? <Text italic>{draft.summary}</Text> : null}
        <Text>{previewRows.slice(0, previewLines).join('\n')}</Text>
        {previewRows.length > previewLines ? <Text dimColor>… {previewRows.length - previewLines} more line(s) — e opens the whole draft</Text> : null}
      </Box>
      {state.busy ? <Text color="yellow">{state.busy.what} {state.busy.slug}…</Text> : state.message ? <Text color={state.message.tone === 'error' ? 'red' : 'green'}>{state.message.text}</Text> : null}
      <Text dimColor>a approve · e edit · r reject · u undo reject · s skip · ↑/↓ move · q quit</Text>
    </Box>
  );
}
