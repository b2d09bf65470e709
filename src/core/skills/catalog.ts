/**
 * The in-memory catalog: every live skill's list entry and file signature, the
 * current load problems, and the search index, kept in step by slug. All reads of the
 * store are answered from here; only `get` goes back to the file.
 */
import { toListEntry } from './entry.js';
import { toSearchDocument } from './search/document.js';
import type { SkillSearchIndex } from './search/engine.js';
import type { ParsedSlice } from './parsed-file.js';
import type { FileSignature } from './skill-file.js';
import type { Skill, SkillListEntry, SkillProblem } from './types.js';

/** What the catalog keeps per skill (also what the persisted manifest holds). */
export interface CatalogRecord extends FileSignature {
  entry: SkillListEntry;
}

/** Live skills, problems and the index. */
export class Catalog {
  readonly records = new Map<string, CatalogRecord>();
  readonly problems = new Map<string, SkillProblem & FileSignature>();

  constructor(readonly index: SkillSearchIndex) {}

  /** True when the catalog already holds exactly this version of the file. */
  isCurrent(slug: string, signature: FileSignature): boolean {
    const held = this.records.get(slug) ?? this.problems.get(`${slug}.md`);
    return held !== undefined && held.mtimeMs === signature.mtimeMs && held.size === signature.size;
  }

  /** Adds or replaces a skill (list entry and index document). */
  put(skill: Skill, signature: FileSignature): void {
    this.problems.delete(`${skill.slug}.md`);
    this.records.set(skill.slug, { entry: toListEntry(skill), ...signature });
    this.index.set(toSearchDocument(skill));
  }

  /** Applies a slice of files parsed elsewhere ({@link parseSlice}, maybe in a worker thread), in order. */
  putSlice(slice: ParsedSlice): void {
    for (const file of slice.files) {
      if (file.kind === 'skill') {
        this.problems.delete(`${file.slug}.md`);
        this.records.set(file.slug, { entry: file.entry, ...file.signature });
      } else if (file.kind === 'problem') {
        this.putProblem(`${file.slug}.md`, file.message, file.signature, file.line);
      }
    }
    this.index.addBatch(slice.batch);
  }

  /** Records a file that does not load (at `line` of it, when known); a skill of that slug leaves the catalog. */
  putProblem(file: string, message: string, signature: FileSignature, line?: number): void {
    if (file.endsWith('.md')) this.drop(file.slice(0, -3));
    this.problems.set(file, { file, message, ...(line ? { line } : {}), ...signature });
  }

  /** Removes a skill (and any problem recorded for its file); false when nothing was there. */
  drop(slug: string): boolean {
    const hadProblem = this.problems.delete(`${slug}.md`);
    const had = this.records.delete(slug);
    this.index.remove(slug);
    return had || hadProblem;
  }
}
