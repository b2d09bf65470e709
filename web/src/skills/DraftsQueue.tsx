/**
 * The drafts review queue: drafts waiting for review (auto-learned ones first), each
 * previewed with Approve (→ complete), Edit, and Reject (→ delete, restorable).
 */
import { useEffect, useMemo, useState } from 'react';
import type { SkillEntry } from '../api/types';
import { href } from '../router';
import { Confirm } from '../ui/Dialog';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote, InfoNote, Skeleton } from '../ui/Notice';
import { useToast } from '../ui/Toasts';
import { useLoad, type Loaded } from '../ui/useLoad';
import { approve, type SkillsApi } from './api';
import { SkillMarkdown } from './Markdown';

/** Which draft a learned-skill link means: the slug itself, or the suffixed one a taken slug got. */
export function pickDraft(drafts: readonly SkillEntry[], slug: string | undefined): SkillEntry | undefined {
  if (!slug) return drafts[0];
  const exact = drafts.find((draft) => draft.slug === slug);
  if (exact) return exact;
  const suffixed = drafts.filter((draft) => new RegExp(`^${slug.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+$`).test(draft.slug));
  return suffixed.sort((a, b) => ((a.learned_at ?? '') < (b.learned_at ?? '') ? 1 : -1))[0] ?? drafts[0];
}

/** Learned drafts first, then the newest first. */
function byReviewOrder(drafts: readonly SkillEntry[]): SkillEntry[] {
  return [...drafts].sort((a, b) => (a.learned_by === b.learned_by ? ((a.learned_at ?? '') < (b.learned_at ?? '') ? 1 : -1) : a.learned_by === 'agent' ? -1 : 1));
}

/** Props of {@link DraftsQueue}. */
export interface DraftsQueueProps {
  structureId: string;
  skills: SkillsApi;
  /** The drafts, loaded by the page (whose tab badge counts them): reloaded here after each review, so the badge follows. */
  drafts: Loaded<SkillEntry[]>;
  canWrite: boolean;
  focus?: string | undefined;
}

/** The review queue. */
export function DraftsQueue({ structureId, skills, drafts, canWrite, focus }: DraftsQueueProps) {
  const list = useMemo(() => byReviewOrder(drafts.data ?? []), [drafts.data]);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [rejecting, setRejecting] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const toast = useToast();

  useEffect(() => {
    if (!drafts.data) return;
    setSelected((current) => (current && list.some((draft) => draft.slug === current) ? current : pickDraft(list, focus)?.slug));
  }, [drafts.data, list, focus]);

  const current = list.find((draft) => draft.slug === selected);
  const full = useLoad((signal) => (selected ? skills.get(selected, signal) : Promise.resolve(undefined)), [skills, selected]);

  const doApprove = async (slug: string) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await approve(skills, slug);
      setNotice(`Approved ${slug}: it is complete now, and agents can match it.`);
      await drafts.reload();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="review">
      <section className="card review-list" aria-label="Drafts">
        <h2>
          Drafts <span className="count">{list.length}</span>
        </h2>
        <ErrorNote error={drafts.error} />
        {drafts.data && list.length === 0 ? <Empty>No draft waits for review. Learned skills appear here.</Empty> : null}
        <ul className="pick-list">
          {list.map((draft) => (
            <li key={draft.slug}>
              <button type="button" className={draft.slug === selected ? 'pick active' : 'pick'} aria-pressed={draft.slug === selected} onClick={() => setSelected(draft.slug)}>
                <span className="pick-title">{draft.name || draft.slug}</span>
                <span className="muted small">
                  <code>{draft.slug}</code> · {draft.learned_by === 'agent' ? 'learned by an agent' : `by ${draft.learned_by}`} · {formatTime(draft.learned_at)}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      <section className="card review-detail" aria-label="Draft preview">
        {notice ? <InfoNote tone="success">{notice}</InfoNote> : null}
        <ErrorNote error={error} onDismiss={() => setError(null)} />
        {current ? (
          <>
            <header className="skill-head">
              <div>
                <h2>{current.name || current.slug}</h2>
                <div className="muted small">
                  <code>{current.slug}</code>
                  {current.category ? ` · ${current.category}` : ''}
                  {current.summary ? ` · ${current.summary}` : ''}
                </div>
              </div>
              {canWrite ? (
                <div className="row gap">
                  <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => void doApprove(current.slug)}>
                    Approve
                  </button>
                  <a className="btn btn-small" href={href.skill(structureId, current.slug, true)}>
                    Edit
                  </a>
                  <button type="button" className="btn btn-small btn-danger-outline" disabled={busy} onClick={() => setRejecting(current.slug)}>
                    Reject
                  </button>
                </div>
              ) : null}
            </header>
            <ErrorNote error={full.error} />
            {full.data ? <SkillMarkdown body={full.data.body} /> : <Skeleton lines={6} label="Loading the draft" />}
          </>
        ) : (
          <p className="muted">Select a draft to review it.</p>
        )}
      </section>
      {rejecting ? (
        <Confirm
          title={`Reject ${rejecting}?`}
          message={<p>The draft is deleted (it can still be restored from the Deleted tab).</p>}
          confirmLabel="Reject draft"
          danger
          onClose={() => setRejecting(null)}
          onConfirm={async () => {
            const slug = rejecting;
            await skills.remove(slug);
            await drafts.reload();
            toast({
              tone: 'success',
              message: `Rejected ${slug}.`,
              action: {
                label: 'Undo',
                run: async () => {
                  await skills.restore(slug);
                  await drafts.reload();
                },
              },
            });
          }}
        />
      ) : null}
    </div>
  );
}
