/** The skill catalog: status and category filters (deprecated only on request). */
import { useMemo, useState } from 'react';
import type { SkillEntry } from '../api/types';
import { href } from '../router';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote, Skeleton } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';
import type { SkillsApi } from './api';
import { StatusBadge, Tags } from './badges';

const STATUSES = ['complete', 'draft', 'deprecated'] as const;

export function Catalog({ structureId, skills }: { structureId: string; skills: SkillsApi }) {
  const [statuses, setStatuses] = useState<string[]>(['complete', 'draft']);
  const [category, setCategory] = useState('');
  const [filter, setFilter] = useState('');
  const status = statuses.length > 0 ? statuses.join(',') : 'complete,draft,deprecated';
  const list = useLoad((signal) => skills.list({ status, ...(category ? { category } : {}) }, signal), [skills, status, category]);
  // Categories come from every skill of the structure, so the filter lists them all.
  const everything = useLoad((signal) => skills.list({ status: 'complete,draft,deprecated' }, signal), [skills]);
  const categories = useMemo(() => [...new Set((everything.data ?? []).map((skill) => skill.category).filter(Boolean))].sort(), [everything.data]);

  const shown = (list.data ?? []).filter((skill) => matches(skill, filter));
  return (
    <section className="card">
      <div className="filters" role="group" aria-label="Filters">
        <fieldset className="checks">
          <legend>Status</legend>
          {STATUSES.map((candidate) => (
            <label key={candidate} className="check">
              <input
                type="checkbox"
                name={`status-${candidate}`}
                checked={statuses.includes(candidate)}
                onChange={(event) => setStatuses((current) => (event.target.checked ? [...current, candidate] : current.filter((value) => value !== candidate)))}
              />
              {candidate}
            </label>
          ))}
        </fieldset>
        <label className="field field-inline">
          <span>Category</span>
          <select name="category" value={category} onChange={(event) => setCategory(event.target.value)}>
            <option value="">All</option>
            {categories.map((candidate) => (
              <option key={candidate} value={candidate}>
                {candidate}
              </option>
            ))}
          </select>
        </label>
        <label className="field field-inline grow">
          <span>Find</span>
          <input type="search" name="filter" placeholder="name, slug or tag" value={filter} onChange={(event) => setFilter(event.target.value)} />
        </label>
        <span className="muted small">{shown.length} skill{shown.length === 1 ? '' : 's'}</span>
      </div>
      <ErrorNote error={list.error} />
      {list.data && shown.length === 0 ? <Empty>No skill matches these filters.</Empty> : null}
      {shown.length > 0 ? (
        <table className="table table-dense">
          <thead>
            <tr>
              <th>Name</th>
              <th>Status</th>
              <th className="col-optional">Category</th>
              <th className="col-optional">Difficulty</th>
              <th className="col-optional">Tags</th>
              <th className="col-optional">Learned by</th>
              <th className="col-optional">Learned</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((skill) => (
              <tr key={skill.slug}>
                <td>
                  <a href={href.skill(structureId, skill.slug)}>{skill.name || skill.slug}</a>
                  <div className="muted small">
                    <code>{skill.slug}</code>
                    {skill.summary ? ` · ${skill.summary}` : ''}
                  </div>
                </td>
                <td>
                  <StatusBadge status={skill.status} />
                </td>
                <td className="col-optional">{skill.category || '—'}</td>
                <td className="col-optional">{skill.difficulty || '—'}</td>
                <td className="col-optional">
                  <Tags tags={skill.tags} />
                </td>
                <td className="col-optional">{skill.learned_by}</td>
                <td className="muted nowrap col-optional">{formatTime(skill.learned_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {list.loading && !list.data ? <Skeleton lines={6} label="Loading skills" /> : null}
    </section>
  );
}

function matches(skill: SkillEntry, filter: string): boolean {
  const needle = filter.trim().toLowerCase();
  if (!needle) return true;
  return [skill.name, skill.slug, skill.summary, ...skill.tags].some((value) => value.toLowerCase().includes(needle));
}
