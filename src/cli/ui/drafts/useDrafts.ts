/** The effects of the review queue: loading drafts and previews, and running the actions. */
import { useCallback, useEffect, type Dispatch } from 'react';
import type { Skill, SkillListEntry } from '../../../client/types.js';
import type { DraftsAction, DraftsState } from './state.js';

/** What the queue can do to drafts (the command wires these to the client). */
export interface DraftActions {
  /** The drafts to review. */
  load(): Promise<SkillListEntry[]>;
  /** The full skill, for the preview. */
  preview(slug: string): Promise<Skill>;
  /** Status → complete. */
  approve(slug: string): Promise<void>;
  /** Delete (restorable). */
  reject(slug: string): Promise<void>;
  /** Undo a reject. */
  restore(slug: string): Promise<void>;
  /** Opens the draft in the editor; resolves with the saved skill (undefined: unchanged). */
  edit(slug: string): Promise<Skill | undefined>;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Loads the queue and the preview of the draft under the cursor; returns the key actions. */
export function useDrafts(actions: DraftActions, state: DraftsState, dispatch: Dispatch<DraftsAction>) {
  useEffect(() => {
    actions.load().then(
      (drafts) => dispatch({ type: 'loaded', drafts }),
      (error: unknown) => dispatch({ type: 'failed', text: `could not load the drafts: ${messageOf(error)}` }),
    );
  }, [actions, dispatch]);

  const slug = state.drafts[state.index]?.slug;
  const hasPreview = slug !== undefined && state.previews[slug] !== undefined;
  useEffect(() => {
    if (slug === undefined || hasPreview) return;
    actions.preview(slug).then(
      (skill) => dispatch({ type: 'preview', slug, preview: { skill } }),
      (error: unknown) => dispatch({ type: 'preview', slug, preview: { error: messageOf(error) } }),
    );
  }, [actions, dispatch, slug, hasPreview]);

  const run = useCallback(
    async (target: string, what: string, work: () => Promise<DraftsAction>) => {
      dispatch({ type: 'busy', slug: target, what });
      try {
        dispatch(await work());
      } catch (error) {
        dispatch({ type: 'failed', text: `${what} ${target} failed: ${messageOf(error)}` });
      }
    },
    [dispatch],
  );

  return {
    approve: (target: string) =>
      run(target, 'approving', async () => {
        await actions.approve(target);
        return { type: 'decided', slug: target, verdict: 'approved', text: `approved ${target}: it is complete and agents can now match it` };
      }),
    reject: (target: string) =>
      run(target, 'rejecting', async () => {
        await actions.reject(target);
        return { type: 'decided', slug: target, verdict: 'rejected', text: `rejected ${target} (deleted; press u to restore it)` };
      }),
    restore: (target: string) =>
      run(target, 'restoring', async () => {
        await actions.restore(target);
        return { type: 'undone', slug: target, text: `restored ${target}` };
      }),
    edit: (target: string) =>
      run(target, 'editing', async () => {
        const skill = await actions.edit(target);
        return skill ? { type: 'edited', slug: target, skill, text: `saved ${target}` } : { type: 'edited', slug: target, text: `no changes to ${target}` };
      }),
    skip: (target: string) => dispatch({ type: 'decided', slug: target, verdict: 'skipped', text: `skipped ${target}` }),
  };
}
