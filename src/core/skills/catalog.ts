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

/**
 * The manifest of a persisted index, kept as loaded until a record is needed: file
 * signatures in number columns and the list entries as one JSON text, all in the order
 * of `slugs`. A start with nothing changed only compares signatures, so it never parses
 * the entries nor makes an object per skill.
 */
export interface LazyManifest {
  slugs: readonly string[];
  mtimes: Float64Array;
  sizes: Float64Array;
  /** The list entries as a JSON array, in the order of `slugs`. */
  entries: () => string;
}

/** Live skills, problems and the index. */
export class Catalog {
  private readonly table = new Map<string, CatalogRecord>();
  private manifest: { data: LazyManifest; at: Map<string, number> } | undefined;
  readonly problems = new Map<string, SkillProblem & FileSignature>();

  constructor(readonly index: SkillSearchIndex) {}

  /** Starts from a persisted manifest, materialised into records on first use; throws when it is malformed. */
  adopt(manifest: LazyManifest): void {
    const count = manifest.slugs.length;
    if (manifest.mtimes.length !== count || manifest.sizes.length !== count || this.table.size > 0) throw new TypeError('malformed manifest');
    const at = new Map<string, number>();
    manifest.slugs.forEach((slug, i) => at.set(slug, i));
    if (at.size !== count) throw new TypeError('malformed manifest');
    this.manifest = { data: manifest, at };
  }

  /** Every live skill's record, by slug (materialises a persisted manifest on first use). */
  get records(): Map<string, CatalogRecord> {
    const pending = this.manifest;
    if (pending) {
      this.manifest = undefined;
      const entries = JSON.parse(pending.data.entries()) as unknown;
      if (!Array.isArray(entries) || entries.length !== pending.data.slugs.length) throw new TypeError('malformed manifest');
      pending.data.slugs.forEach((slug, i) => {
        this.table.set(slug, { entry: entries[i] as SkillListEntry, mtimeMs: pending.data.mtimes[i] as number, size: pending.data.sizes[i] as number });
      });
    }
    return this.table;
  }

  /** The file signature of a live skill, without materialising the manifest. */
  signatureOf(slug: string): FileSignature | undefined {
    if (this.manifest) {
      const i = this.manifest.at.get(slug);
      return i === undefined ? undefined : { mtimeMs: this.manifest.data.mtimes[i] as number, size: this.manifest.data.sizes[i] as number };
    }
    return this.table.get(slug);
  }

  /** Slugs of the live skills, without materialising the manifest. */
  slugs(): string[] {
    return this.manifest ? [...this.manifest.data.slugs] : [...this.table.keys()];
  }

  /** Number of live skills. */
  get count(): number {
    return this.manifest ? this.manifest.data.slugs.length : this.table.size;
  }

  /** True when the catalog already holds exactly this version of the file. */
  isCurrent(slug: string, signature: FileSignature): boolean {
    const held = this.signatureOf(slug) ?? this.problems.get(`${slug}.md`);
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
    // Only a skill held makes the records materialise (a bad file name never does).
    const had = this.signatureOf(slug) !== undefined && this.records.delete(slug);
    this.index.remove(slug);
    return had || hadProblem;
  }
}
