/**
 * The structure's Skills Editor: catalog with filters, skill pages, the editor, the
 * drafts review queue, deleted skills with restore, the search tester, and the files
 * that do not load (polled, so a fix on disk shows without a reload).
 */
import { lazy, Suspense, useEffect, useMemo, useRef } from 'react';
import { useRole, useSession } from '../api/context';
import { href, type SkillsView } from '../router';
import { useTitle } from '../ui/hooks';
import { useLoad } from '../ui/useLoad';
import { skillsApi } from './api';
import { Catalog } from './Catalog';
import { DeletedSkills } from './DeletedSkills';
import { DraftsQueue } from './DraftsQueue';
import { Gaps } from './Gaps';
import { Problems, ProblemsBanner } from './Problems';
import { SearchTester } from './SearchTester';
import { SkillEditor } from './SkillEditor';
import { SkillView as SkillPage } from './SkillView';
import { InfoNote, Skeleton } from '../ui/Notice';

const SkillVersionPage = lazy(() => import('./SkillVersionPage').then((module) => ({ default: module.SkillVersionPage })));

const TABS = [
  { tab: 'catalog', label: 'Catalog', sub: '' },
  { tab: 'drafts', label: 'Drafts review', sub: 'drafts' },
  { tab: 'gaps', label: 'Gaps', sub: 'gaps' },
  { tab: 'deleted', label: 'Deleted', sub: 'deleted' },
  { tab: 'search', label: 'Search tester', sub: 'search' },
  { tab: 'problems', label: 'Problems', sub: 'problems' },
] as const;

const TITLES: Record<string, string> = { catalog: 'Skills', drafts: 'Drafts review', gaps: 'What to teach next', deleted: 'Deleted skills', search: 'Search tester', problems: 'Skill problems', new: 'New skill' };

/** The Skills Editor. */
export function SkillsPage({ structureId, view }: { structureId: string; view: SkillsView }) {
  const { api } = useSession();
  const role = useRole(structureId);
  const canWrite = role === 'operator' || role === 'owner';
  const skills = useMemo(() => skillsApi(api, structureId), [api, structureId]);
  const active = view.tab === 'skill' || view.tab === 'edit' || view.tab === 'new' || view.tab === 'version' ? 'catalog' : view.tab;
  const problems = useLoad((signal) => skills.problems(signal), [skills], 5000);
  const problemCount = problems.data?.length ?? 0;
  // The badges: drafts waiting for review, and gaps (operators and owners may read the gap report),
  // loaded again quietly on every change of tab (a skill written meanwhile may close a gap or a draft).
  const drafts = useLoad((signal) => skills.list({ status: 'draft' }, signal), [skills], 15_000);
  const gaps = useLoad((signal) => (canWrite ? skills.gaps(signal) : Promise.resolve([])), [skills, canWrite], 30_000);
  const badges = useRef([drafts, gaps]);
  badges.current = [drafts, gaps];
  const shownTab = useRef(view.tab);
  useEffect(() => {
    if (shownTab.current === view.tab) return;
    shownTab.current = view.tab;
    for (const badge of badges.current) void badge.reload();
  }, [view.tab]);
  const counts: Record<string, number> = { drafts: drafts.data?.length ?? 0, gaps: gaps.data?.length ?? 0, problems: problemCount };
  const editing = view.tab === 'edit' || view.tab === 'new';
  useTitle(view.tab === 'skill' ? view.slug : view.tab === 'edit' ? `Edit ${view.slug}` : view.tab === 'version' ? `${view.slug} at ${view.version.startsWith('kept-') ? 'an earlier version' : view.version.slice(0, 8)}` : TITLES[view.tab]);
  return (
    <div className="page">
      <div className="page-head">
        <h1>Skills</h1>
        <nav className="subtabs" aria-label="Skills Editor">
          {TABS.filter((tab) => tab.tab !== 'gaps' || canWrite).map((tab) => (
            <a key={tab.tab} href={href.skills(structureId, tab.sub)} className={active === tab.tab ? 'subtab active' : 'subtab'} aria-current={active === tab.tab ? 'page' : undefined}>
              {tab.label}
              {(counts[tab.tab] ?? 0) > 0 ? (
                <span className={tab.tab === 'problems' ? 'count count-warning' : 'count'}>
                  {counts[tab.tab]}
                  <span className="sr-only"> {tab.tab === 'drafts' ? 'waiting' : tab.tab === 'gaps' ? 'open' : 'files'}</span>
                </span>
              ) : null}
            </a>
          ))}
        </nav>
        <span className="grow" />
        {canWrite ? (
          <a className="btn btn-small btn-primary" href={href.skills(structureId, 'new')}>
            + New skill
          </a>
        ) : null}
      </div>
      {view.tab === 'catalog' ? <ProblemsBanner structureId={structureId} count={problemCount} /> : null}
      {view.tab === 'catalog' ? <Catalog structureId={structureId} skills={skills} /> : null}
      {view.tab === 'problems' ? <Problems problems={problems} /> : null}
      {view.tab === 'drafts' ? <DraftsQueue structureId={structureId} skills={skills} drafts={drafts} canWrite={canWrite} focus={view.slug} /> : null}
      {view.tab === 'deleted' ? <DeletedSkills skills={skills} canWrite={canWrite} structureId={structureId} /> : null}
      {view.tab === 'search' ? <SearchTester structureId={structureId} skills={skills} /> : null}
      {view.tab === 'skill' ? <SkillPage key={view.slug} structureId={structureId} slug={view.slug} skills={skills} canWrite={canWrite} /> : null}
      {view.tab === 'version' ? (
        <Suspense fallback={<Skeleton lines={8} label={`Loading this version of ${view.slug}`} />}>
          <SkillVersionPage key={`${view.slug}@${view.version}${view.compare ? '?compare' : ''}`} structureId={structureId} slug={view.slug} version={view.version} {...(view.compare ? { compare: true } : {})} skills={skills} canWrite={canWrite} />
        </Suspense>
      ) : null}
      {view.tab === 'gaps' ? <Gaps structureId={structureId} gaps={gaps} canWrite={canWrite} /> : null}
      {editing && role !== undefined && !canWrite ? (
        <InfoNote tone="warning">
          Your role in this workspace is {role}: you can read its skills, and writing them needs the operator or owner role. <a href={href.skills(structureId)}>Back to the catalog</a>
        </InfoNote>
      ) : null}
      {view.tab === 'edit' && canWrite ? <SkillEditor key={view.slug} structureId={structureId} slug={view.slug} skills={skills} /> : null}
      {view.tab === 'new' && canWrite ? <SkillEditor key={`new:${view.from ?? ''}`} structureId={structureId} skills={skills} {...(view.from ? { from: view.from } : {})} /> : null}
    </div>
  );
}
