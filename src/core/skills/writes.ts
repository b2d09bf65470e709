/**
 * The writes of the skill store (API.md §4, §10): upsert with validation, soft delete into
 * `.deleted/`, restore of the newest deleted version. Each runs under the store mutex,
 * writes atomically, updates the catalog and index at once (the watcher's later event
 * for the same file is then a no-op) and, when enabled, commits with git. An update
 * keeps the replaced text in `.deleted/` and rewrites only the front matter members
 * that changed, so the author's YAML formatting survives.
 *
 * Every write acts in one scope: a structure's own skills (`structureId`), or the
 * instance library (none; the caller checked the writer is the instance administrator).
 * A structure writes only its own skills: a slug that names an instance skill (and no
 * skill of its own) is refused with 403 `instance_skill`, which says to fork it. Nothing
 * of another structure is read, so no answer depends on what another structure has.
 */
import { isDeepStrictEqual } from 'node:util';
import { alreadyExists, conflict, instanceSkill, invalid, notFound, preconditionFailed, type FieldError, type OrgError } from '../errors.js';
import { lstatOrUndefined, readFileSafe, renameSafe, writeAtomic } from '../storage/index.js';
import { STORE_LOCK, type StoreContext } from './context.js';
import { normalizeBody, parseSkillText, serializeSkill, type ParseResult } from './file-format.js';
import { rewriteFrontMatter } from './front-matter-source.js';
import { isPlainObject, validateFrontmatter } from './frontmatter.js';
import { PublishRefused } from './remote.js';
import { replaceResources } from './resources.js';
import { applyFileChangesHeld } from './sync.js';
import { readSkillFile, signatureOf, skillPath, type ReadOutcome } from './skill-file.js';
import { isStructureShapedSlug, keyOf, scopeDir, type SkillKey } from './skill-key.js';
import { assertSlug } from './slug.js';
import { keepReplaced, listTrash, moveToTrash, readTrashed } from './trash.js';
import type { Skill } from './types.js';
import { matchesVersion, skillETag } from './version.js';

/**
 * A condition the stored skill must meet for a write to go ahead (HTTP's conditional
 * requests): `absent` creates only (`If-None-Match: *`), failing with 409
 * `already_exists` when the slug is taken. A version check (`If-Match`) is
 * {@link UpsertInput.ifMatch}.
 */
export type WritePrecondition = { kind: 'absent' };

import { MAX_BODY_BYTES } from './check.js';

export { MAX_BODY_BYTES };

/** Input of {@link upsertSkill}. */
export interface UpsertInput {
  slug: string;
  /** Front matter members; unknown members are kept. `learned_at` of an existing skill wins. */
  frontmatter: unknown;
  body: string;
  /**
   * The structure whose own skill this is (its `structure_id` is set to it; another
   * value in the front matter → 400); undefined writes an instance skill.
   */
  structureId?: string;
  /** Who writes (user e-mail, `agent:<role>`, …), for the git message. */
  actor?: string;
  /** Write only when the stored skill meets this condition (default: create or replace). */
  precondition?: WritePrecondition;
  /**
   * `If-Match` entity tags: write only while the stored skill is one of these versions
   * (`*`: any existing version); otherwise 412 and nothing is written.
   */
  ifMatch?: readonly string[];
  /** What the write is, for the git message (default `create` or `update`), e.g. `restore version 1a2b3c4d`. */
  note?: string;
}

/** Result of an upsert: the stored record and whether the slug was new. */
export interface UpsertResult {
  skill: Skill;
  created: boolean;
}

/** Scope options of delete and restore. */
export interface ScopeOptions {
  /** The structure whose own skill is meant; undefined for an instance skill. */
  structureId?: string;
  actor?: string;
  /** `If-Match` entity tags of a delete (see {@link UpsertInput.ifMatch}). */
  ifMatch?: readonly string[];
}

/** Creates or replaces `<root>/<slug>.md`. */
export async function upsertSkill(ctx: StoreContext, input: UpsertInput): Promise<UpsertResult> {
  assertSlug(input.slug);
  const errors: FieldError[] = [];
  if (typeof input.body !== 'string') errors.push({ path: 'body', message: 'must be a string' });
  else if (Buffer.byteLength(input.body, 'utf8') > MAX_BODY_BYTES) {
    errors.push({ path: 'body', message: `must be at most ${MAX_BODY_BYTES} bytes` });
  }
  if (!isPlainObject(input.frontmatter)) errors.push({ path: 'frontmatter', message: 'must be an object' });
  if (errors.length > 0) throw invalidSkill(errors);

  const declared = (input.frontmatter as Record<string, unknown>).structure_id ?? undefined;
  if (declared !== undefined && declared !== input.structureId) {
    throw invalidSkill([
      {
        path: 'frontmatter.structure_id',
        message: input.structureId === undefined ? 'must be absent: this is an instance skill' : `must be ${input.structureId}, the structure of the request (or absent)`,
      },
    ]);
  }
  const key: SkillKey = input.structureId === undefined ? { slug: input.slug } : { slug: input.slug, structureId: input.structureId };

  return ctx.mutex.run(STORE_LOCK, async () => {
    const { root, clock } = ctx.options;
    const file = skillPath(root, key);
    const existing = await readSkillFile(root, key);
    refuseLink(existing, key);
    if (existing.kind === 'missing') refuseNewSlug(ctx, key);
    const previous = existing.kind === 'skill' ? existing.skill : undefined;
    if (input.precondition?.kind === 'absent' && existing.kind !== 'missing') {
      throw alreadyExists(`a skill with the slug ${input.slug} already exists`, { slug: input.slug });
    }
    if (input.ifMatch) assertVersion(input.slug, previous, input.ifMatch);
    const raw = { ...(input.frontmatter as Record<string, unknown>) };
    if (input.structureId !== undefined) raw.structure_id = input.structureId;
    raw.learned_at = previous?.frontmatter.learned_at ?? raw.learned_at ?? clock().toISOString();
    raw.learned_by ??= previous?.frontmatter.learned_by ?? 'user';
    const checked = validateFrontmatter(raw, {
      learned_by: 'user',
      learned_at: clock().toISOString(),
      category: 'general',
      difficulty: 'medium',
    });
    if (!checked.ok) throw invalidSkill(checked.errors);

    const parse = (text: string) =>
      parseSkillText(input.slug, text, {
        learned_by: 'user',
        learned_at: checked.frontmatter.learned_at,
        category: 'general',
        difficulty: 'medium',
      });
    const canonical = serializeSkill(checked.frontmatter, input.body);
    const parsed = parse(canonical);
    if (!parsed.ok) throw invalidSkill(parsed.errors.length > 0 ? parsed.errors : [{ path: 'frontmatter', message: parsed.message }]);
    const previousText = existing.kind === 'missing' ? undefined : await readFileSafe(file, 'utf8').catch(() => undefined);
    const text = (previous && previousText !== undefined && keptFormatting(previousText, previous, parsed, parse)) || canonical;
    if (text === previousText) return { skill: parsed.skill, created: false };

    const files = [file];
    if (previousText !== undefined) files.push(await keepReplaced(scopeDir(root, key.structureId), input.slug, previousText, clock()));
    await writeAtomic(file, text);
    const signature = await signatureOf(file);
    if (signature) ctx.catalog.put(parsed.skill, signature);
    const created = existing.kind === 'missing';
    ctx.changed({ type: 'upsert', slug: input.slug, ...structureOf(key), created, source: 'api' });
    await commit(ctx, files, `skill ${describeKey(key)}: ${input.note ?? (created ? 'create' : 'update')}`, input.actor);
    return { skill: parsed.skill, created };
  });
}

/**
 * Refuses a slug a scope may not create: in a structure, the slug of an instance skill
 * (403 `instance_skill`: fork it instead); in the instance library, a slug shaped like a
 * structure id (its files' folder would be taken for a structure's folder).
 */
export function refuseNewSlug(ctx: StoreContext, key: SkillKey): void {
  if (key.structureId !== undefined) {
    if (ctx.catalog.has(key.slug) || ctx.catalog.problems.has(`${key.slug}.md`)) throw instanceSkill(key.slug);
  } else if (isStructureShapedSlug(key.slug)) {
    throw invalid('invalid slug', [{ path: 'slug', message: 'must not be shaped like a structure id (a UUID): skills/<structure_id>/ holds that structure’s skills' }]);
  }
}

/** The structure member of a change event for a key. */
function structureOf(key: SkillKey): { structure_id?: string } {
  return key.structureId === undefined ? {} : { structure_id: key.structureId };
}

/** How a commit message names a skill: its slug (the commit's path says whose it is). */
function describeKey(key: SkillKey): string {
  return key.slug;
}

/** The key of `slug` in a scope. */
function keyIn(slug: string, structureId: string | undefined): SkillKey {
  return structureId === undefined ? { slug } : { slug, structureId };
}

/** Refuses a change of an instance skill made from a structure that has no skill of its own by that slug. */
function refuseInstance(ctx: StoreContext, slug: string, structureId: string | undefined): void {
  if (structureId !== undefined && (ctx.catalog.has(slug) || ctx.catalog.problems.has(`${slug}.md`))) throw instanceSkill(slug);
}

/** Moves a live skill to `.deleted/`; 404 when there is none. */
export async function removeSkill(ctx: StoreContext, slug: string, scope: ScopeOptions = {}): Promise<void> {
  assertSlug(slug);
  const key = keyIn(slug, scope.structureId);
  return ctx.mutex.run(STORE_LOCK, async () => {
    const { root, clock } = ctx.options;
    const file = skillPath(root, key);
    const existing = await readSkillFile(root, key);
    if (existing.kind === 'missing') {
      refuseInstance(ctx, slug, scope.structureId);
      throw notFound(`skill ${slug} not found`);
    }
    refuseLink(existing, key);
    if (scope.ifMatch) assertVersion(slug, existing.kind === 'skill' ? existing.skill : undefined, scope.ifMatch);
    const moved = await moveToTrash(scopeDir(root, key.structureId), slug, clock());
    ctx.catalog.drop(keyOf(slug, key.structureId));
    ctx.changed({ type: 'remove', slug, ...structureOf(key), source: 'api' });
    await commit(ctx, [file, moved], `skill ${describeKey(key)}: delete`, scope.actor);
  });
}

/** Brings back the newest deleted version; 409 when a live skill has the slug, 404 when none. */
export async function restoreSkill(ctx: StoreContext, slug: string, scope: ScopeOptions = {}): Promise<Skill> {
  assertSlug(slug);
  const key = keyIn(slug, scope.structureId);
  return ctx.mutex.run(STORE_LOCK, async () => {
    const { root } = ctx.options;
    const file = skillPath(root, key);
    const live = await lstatOrUndefined(file);
    if (live?.isSymbolicLink()) throw linkConflict(key);
    if (live) throw conflict(`a live skill ${slug} exists`);
    const newest = (await listTrash(scopeDir(root, key.structureId))).find((entry) => entry.slug === slug);
    if (!newest) {
      if (scope.structureId !== undefined && (ctx.catalog.has(slug) || (await listTrash(root)).some((entry) => entry.slug === slug))) throw instanceSkill(slug);
      throw notFound(`no deleted skill ${slug}`);
    }
    const trashed = await readTrashed(newest);
    if (trashed && trashed.frontmatter.structure_id !== key.structureId) throw invalid(`deleted skill ${slug} belongs to another scope and cannot be restored here`);
    await renameSafe(newest.file, file);
    const outcome = await readSkillFile(root, key);
    if (outcome.kind !== 'skill') {
      if (outcome.kind === 'problem') ctx.catalog.putProblem(`${keyOf(slug, key.structureId)}.md`, outcome.message, outcome.signature, outcome.line);
      throw invalid(`deleted skill ${slug} no longer parses`);
    }
    ctx.catalog.put(outcome.skill, outcome.signature);
    ctx.changed({ type: 'restore', slug, ...structureOf(key), source: 'api' });
    await commit(ctx, [file, newest.file], `skill ${describeKey(key)}: restore`, scope.actor);
    return outcome.skill;
  });
}

/** 400 whose detail names the first problem (`invalid skill: frontmatter.status must be one of …`). */
function invalidSkill(errors: FieldError[]): OrgError {
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return invalid(first ? `invalid skill: ${first.path} ${first.message}${more}` : 'invalid skill', errors);
}

/**
 * The new file text written over the previous one with the unchanged front matter
 * members kept as the author wrote them; used only when it reads back exactly as the
 * canonical text does (else undefined, and the canonical form is written).
 */
function keptFormatting(previousText: string, previous: Skill, wanted: Extract<ParseResult, { ok: true }>, parse: (text: string) => ParseResult): string | undefined {
  const text = rewriteFrontMatter(previousText, previous.frontmatter, wanted.skill.frontmatter, normalizeBody(wanted.skill.body));
  if (text === undefined) return undefined;
  const reread = parse(text);
  return reread.ok && isDeepStrictEqual(reread.skill, wanted.skill) ? text : undefined;
}

/**
 * Replaces the files kept beside a live skill (scripts, references, assets): 404 when
 * the skill does not exist or belongs to another structure, 400 for unsafe paths or
 * too much data.
 */
export async function replaceSkillFiles(ctx: StoreContext, slug: string, files: ReadonlyMap<string, Uint8Array>, scope: ScopeOptions = {}): Promise<void> {
  assertSlug(slug);
  const key = keyIn(slug, scope.structureId);
  return ctx.mutex.run(STORE_LOCK, async () => {
    const { root } = ctx.options;
    const existing = await readSkillFile(root, key);
    refuseLink(existing, key);
    if (existing.kind !== 'skill') {
      refuseInstance(ctx, slug, scope.structureId);
      throw notFound(`skill ${slug} not found`);
    }
    const written = await replaceResources(scopeDir(root, key.structureId), slug, files);
    if (written.length > 0) await commit(ctx, written, `skill ${describeKey(key)}: files`, scope.actor);
  });
}

/** 412 unless the stored skill is one of the versions the writer read. */
function assertVersion(slug: string, current: Skill | undefined, tags: readonly string[]): void {
  if (matchesVersion(current, tags)) return;
  if (!current) throw preconditionFailed(`skill ${slug} does not exist (If-Match names a version of it)`);
  throw preconditionFailed(`skill ${slug} changed since it was read: its version is now ${skillETag(current)}; read it again and redo the change`, {
    etag: skillETag(current),
  });
}

/** 409 for a skill whose file is a symbolic link: nothing is ever written, moved or read through it. */
function linkConflict(key: SkillKey): OrgError {
  return conflict(`skills/${keyOf(key.slug, key.structureId)}.md is a symbolic link; org never writes through links: replace it with a regular file`);
}

function refuseLink(outcome: ReadOutcome, key: SkillKey): void {
  if (outcome.kind === 'problem' && outcome.link) throw linkConflict(key);
}

export async function commit(ctx: StoreContext, files: string[], message: string, actor: string | undefined): Promise<void> {
  const full = `${message} by ${actor ?? 'unknown'}`;
  const remote = ctx.options.remote;
  if (remote) {
    try {
      await remote.publish(files, full);
    } catch (error) {
      // The clone went back to the remote's state: the catalog follows it, then the write is refused.
      if (error instanceof PublishRefused) await applyFileChangesHeld(ctx, error.changedFiles);
      throw error;
    }
    return;
  }
  if (!ctx.options.commit) return;
  // A failed commit stays queued and is retried; it is a problem of the library until then.
  await ctx.commits.commit(files, full);
}
