/**
 * The skill editor: a front-matter form and the markdown body with a live preview,
 * saved through POST /knowledge/skills. Front-matter members the form does not know
 * are kept as they are.
 */
import { useEffect, useState } from 'react';
import type { Skill } from '../api/types';
import { href, navigate } from '../router';
import { ErrorNote } from '../ui/Notice';
import type { SkillsApi } from './api';
import { SkillMarkdown } from './Markdown';

const TEMPLATE_BODY = '## [first-step] Step 1: Title of the step\n\nWhat to do, and how to tell it is done.\n';

interface Form {
  slug: string;
  name: string;
  category: string;
  difficulty: string;
  tags: string;
  status: string;
  summary: string;
  tool_url: string;
  body: string;
}

const emptyForm: Form = { slug: '', name: '', category: '', difficulty: 'medium', tags: '', status: 'draft', summary: '', tool_url: '', body: TEMPLATE_BODY };

function toForm(skill: Skill): Form {
  const fm = skill.frontmatter;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    slug: skill.slug,
    name: text(fm.name),
    category: text(fm.category),
    difficulty: text(fm.difficulty),
    tags: Array.isArray(fm.tags) ? fm.tags.map(String).join(', ') : '',
    status: text(fm.status) || 'draft',
    summary: text(fm.summary),
    tool_url: text(fm.tool_url),
    body: skill.body,
  };
}

/** A URL-safe slug from a name. */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

/** Creates (no slug) or edits a skill. */
export function SkillEditor({ structureId, slug, skills }: { structureId: string; slug?: string; skills: SkillsApi }) {
  const [form, setForm] = useState<Form>(emptyForm);
  const [original, setOriginal] = useState<Record<string, unknown>>({ type: 'skill' });
  const [loadError, setLoadError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [slugTouched, setSlugTouched] = useState(Boolean(slug));
  const [tab, setTab] = useState<'split' | 'write' | 'preview'>('split');

  useEffect(() => {
    if (!slug) return;
    const controller = new AbortController();
    skills.get(slug, controller.signal).then(
      (skill) => {
        setForm(toForm(skill));
        setOriginal(skill.frontmatter);
      },
      (failure: unknown) => {
        if (!controller.signal.aborted) setLoadError(failure);
      },
    );
    return () => controller.abort();
  }, [skills, slug]);

  const set = (name: keyof Form) => (event: { target: { value: string } }) => {
    const value = event.target.value;
    setForm((current) => ({ ...current, [name]: value, ...(name === 'name' && !slugTouched ? { slug: slugify(value) } : {}) }));
  };

  const save = async () => {
    setBusy(true);
    setError(null);
    const frontmatter: Record<string, unknown> = {
      ...original,
      type: 'skill',
      name: form.name.trim(),
      category: form.category.trim(),
      difficulty: form.difficulty,
      tags: form.tags
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
      status: form.status,
      summary: form.summary.trim(),
      tool_url: form.tool_url.trim() ? form.tool_url.trim() : null,
    };
    try {
      const saved = await skills.save(form.slug.trim(), frontmatter, form.body);
      navigate(href.skill(structureId, saved.slug));
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  if (loadError) return <ErrorNote error={loadError} />;
  return (
    <form
      className="card editor"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <div className="editor-head">
        <h2>{slug ? `Edit ${slug}` : 'New skill'}</h2>
        <span className="grow" />
        <a className="btn btn-small" href={slug ? href.skill(structureId, slug) : href.skills(structureId)}>
          Cancel
        </a>
        <button type="submit" className="btn btn-small btn-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save skill'}
        </button>
      </div>
      <ErrorNote error={error} />
      <div className="fm-grid">
        <label className="field">
          <span>Name</span>
          <input name="name" required value={form.name} onChange={set('name')} autoFocus={!slug} />
        </label>
        <label className="field">
          <span>Slug</span>
          <input
            name="slug"
            required
            pattern="[a-z0-9]+(-[a-z0-9]+)*"
            maxLength={64}
            readOnly={Boolean(slug)}
            value={form.slug}
            onChange={(event) => {
              setSlugTouched(true);
              set('slug')(event);
            }}
          />
        </label>
        <label className="field">
          <span>Status</span>
          <select name="status" value={form.status} onChange={set('status')}>
            <option value="draft">draft</option>
            <option value="complete">complete</option>
            <option value="deprecated">deprecated</option>
          </select>
        </label>
        <label className="field">
          <span>Category</span>
          <input name="category" value={form.category} onChange={set('category')} placeholder="sales" />
        </label>
        <label className="field">
          <span>Difficulty</span>
          <select name="difficulty" value={form.difficulty} onChange={set('difficulty')}>
            <option value="">—</option>
            <option value="low">low</option>
            <option value="medium">medium</option>
            <option value="high">high</option>
          </select>
        </label>
        <label className="field">
          <span>Tags (comma separated)</span>
          <input name="tags" value={form.tags} onChange={set('tags')} />
        </label>
        <label className="field fm-wide">
          <span>Summary</span>
          <input name="summary" value={form.summary} onChange={set('summary')} />
        </label>
        <label className="field fm-wide">
          <span>Tool URL (optional)</span>
          <input name="tool_url" type="url" value={form.tool_url} onChange={set('tool_url')} placeholder="https://…" />
        </label>
      </div>
      <div className="editor-tabs" role="group" aria-label="Body view">
        {(['write', 'split', 'preview'] as const).map((candidate) => (
          <button key={candidate} type="button" className={tab === candidate ? 'subtab active' : 'subtab'} aria-pressed={tab === candidate} onClick={() => setTab(candidate)}>
            {candidate === 'write' ? 'Markdown' : candidate === 'split' ? 'Side by side' : 'Preview'}
          </button>
        ))}
        <span className="muted small">Steps are sections headed “## [step-id] Step n: Title”.</span>
      </div>
      <div className={`editor-body editor-${tab}`}>
        {tab !== 'preview' ? (
          <label className="field editor-source">
            <span className="sr-only">Markdown body</span>
            <textarea name="body" value={form.body} onChange={set('body')} spellCheck={false} />
          </label>
        ) : null}
        {tab !== 'write' ? (
          <div className="editor-preview" aria-label="Preview">
            <SkillMarkdown body={form.body} />
          </div>
        ) : null}
      </div>
    </form>
  );
}
