/**
 * The skill editor: a front-matter form and the markdown body with a live preview,
 * saved through POST /knowledge/skills. A new skill is created only (`If-None-Match: *`):
 * a slug that is taken is never overwritten, and the editor offers to open the existing
 * skill or pick another slug. Leaving with unsaved changes asks first. Front-matter
 * members the form does not know are kept as they are.
 */
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client';
import type { Skill } from '../api/types';
import { href, navigate, useLeaveGuard } from '../router';
import { ErrorNote, Skeleton } from '../ui/Notice';
import type { SkillsApi } from './api';
import { SkillMarkdown } from './Markdown';

/** The editor's labels, so errors about fields name them as the form does. */
export const SKILL_LABELS = {
  name: 'Name',
  slug: 'Slug',
  status: 'Status',
  category: 'Category',
  difficulty: 'Difficulty',
  tags: 'Tags',
  summary: 'Summary',
  tool_url: 'Tool URL',
  body: 'Markdown body',
  type: 'Type',
} as const;

const TEMPLATE_BODY = '## [first-step] Step 1: Title of the step\n\nWhat to do, and how to tell it is done.\n';

interface Form {
  slug: string;
  name: string;
  category: string;
  difficulty: string;
  tags: string;
  status: string;
  summary: string;
  /** Example requests, one a line. */
  triggers: string;
  tool_url: string;
  body: string;
}

const emptyForm: Form = { slug: '', name: '', category: '', difficulty: 'medium', tags: '', status: 'draft', summary: '', triggers: '', tool_url: '', body: TEMPLATE_BODY };

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
    triggers: Array.isArray(fm.triggers) ? fm.triggers.map(String).join('\n') : '',
    tool_url: text(fm.tool_url),
    body: skill.body,
  };
}

/** The non-empty lines of the triggers box, trimmed. */
function triggerLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** Example requests a skill should list: fewer than this and the editor suggests adding some. */
const SUGGESTED_TRIGGERS = 5;

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

/** True when an error says the slug of a new skill is taken. */
function isTaken(error: unknown): boolean {
  return error instanceof ApiError && error.problem.code === 'already_exists';
}

/** Creates (no slug) or edits a skill. */
export function SkillEditor({ structureId, slug, skills, from }: { structureId: string; slug?: string; skills: SkillsApi; from?: string }) {
  // A skill started from a request of the gap report: the request is its first trigger and the start of its name.
  const start: Form = from ? { ...emptyForm, name: from.slice(0, 80), slug: slugify(from.slice(0, 80)), triggers: from } : emptyForm;
  const [form, setForm] = useState<Form>(start);
  const [saved, setSaved] = useState<Form | null>(slug ? null : emptyForm);
  const [original, setOriginal] = useState<Record<string, unknown>>({ type: 'skill' });
  const [loadError, setLoadError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [slugTouched, setSlugTouched] = useState(Boolean(slug));
  const [tab, setTab] = useState<'split' | 'write' | 'preview'>('split');
  const slugInput = useRef<HTMLInputElement>(null);
  const dirty = saved !== null && JSON.stringify(form) !== JSON.stringify(saved);
  const release = useLeaveGuard(dirty ? 'Leave the editor? Your changes to this skill are not saved.' : null);

  useEffect(() => {
    if (!slug) return;
    const controller = new AbortController();
    skills.get(slug, controller.signal).then(
      (skill) => {
        setForm(toForm(skill));
        setSaved(toForm(skill));
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
    const triggers = triggerLines(form.triggers);
    if (triggers.length > 0) frontmatter.triggers = triggers;
    else delete frontmatter.triggers;
    try {
      const stored = slug ? await skills.save(slug, frontmatter, form.body) : await skills.create(form.slug.trim(), frontmatter, form.body);
      release();
      navigate(href.skill(structureId, stored.slug));
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (!saved) return <Skeleton lines={8} label={`Loading ${slug ?? 'the skill'}`} />;
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
      {isTaken(error) ? (
        <ErrorNote error={error} labels={SKILL_LABELS} onDismiss={() => setError(null)}>
          <p>
            A skill with the slug <code>{form.slug.trim()}</code> already exists, and creating never replaces one. Open it to change it, or choose another slug.
          </p>
          <a className="btn btn-small" href={href.skill(structureId, form.slug.trim())}>
            Open the existing one
          </a>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => {
              setError(null);
              setSlugTouched(true);
              slugInput.current?.focus();
              slugInput.current?.select();
            }}
          >
            Choose another slug
          </button>
        </ErrorNote>
      ) : (
        <ErrorNote error={error} labels={SKILL_LABELS} />
      )}
      <div className="fm-grid">
        <label className="field">
          <span>Name</span>
          <input name="name" required value={form.name} onChange={set('name')} autoFocus={!slug} />
        </label>
        <label className="field">
          <span>Slug</span>
          <input
            ref={slugInput}
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
          <span>Triggers (one example request a line)</span>
          <textarea name="triggers" rows={4} value={form.triggers} onChange={set('triggers')} placeholder={'the site is down\ncustomers can’t log in'} />
        </label>
        {triggerLines(form.triggers).length < SUGGESTED_TRIGGERS ? (
          <p className="muted small fm-wide" role="note">
            Add {SUGGESTED_TRIGGERS}–10 requests a person would type when they need this skill: search weighs them strongly and cites them in its reasons.
          </p>
        ) : null}
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
          <div className="editor-preview" role="region" aria-label="Preview" tabIndex={0}>
            <SkillMarkdown body={form.body} />
          </div>
        ) : null}
      </div>
    </form>
  );
}
