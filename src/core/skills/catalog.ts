/**
 * The in-memory catalog: every live skill's list entry and file signature, the
 * current load problems, and the search index, kept in step by key (`<slug>` for an
 * instance skill, `<structure_id>/<slug>` for a structure's: see `skill-key.ts`), and the
 * instance skills each structure replaced (see `visibility.ts`). All reads of the store
 * are answered from here; only `get` goes back to the file.
 */
import { toListEntry } from './entry.js';
import { toSearchDocument } from './search/document.js';
import type { SkillSearchIndex } from './search/engine.js';
import type { ParsedSlice } from './parsed-file.js';
import type { FileSignature } from './skill-file.js';
import { isStructureFolderName, keyOf, relativeFile } from './skill-key.js';
import type { Skill, SkillListEntry, SkillProblem } from './types.js';
import { Shadows, type Hidden } from './visibility.js';

/** What the catalog keeps per skill (also what the persisted manifest holds). */
export interface CatalogRecord extends FileSignature {
  entry: SkillListEntry;
}

/**
 * The manifest of a persisted index, kept as loaded until a record is needed: file
 * signatures in number columns and the list entries as one JSON text, all in the order
 * of `keys`. A start with nothing changed only compares signatures, so it never parses
 * the entries nor makes an object per skill.
 */
export interface LazyManifest {
  /** Skill keys (see `skill-key.ts`), in the order of the index's documents. */
  keys: readonly string[];
  mtimes: Float64Array;
  sizes: Float64Array;
  /** The list entries as a JSON array, in the order of `slugs`. */
  entries: () => string;
}

/** A load problem as the catalog keeps it: with the file's signature, and the structure whose folder holds it. */
export type CatalogProblem = SkillProblem & FileSignature & { structure_id?: string };

/** The structure whose folder holds `file` (a path relative to the root), or undefined for the instance library's. */
export function problemOwner(file: string): string | undefined {
  const at = file.indexOf('/');
  const folder = at < 0 ? undefined : file.slice(0, at);
  return folder !== undefined && isStructureFolderName(folder) ? folder : undefined;
}

/** Live skills, problems and the index. */
export class Catalog {
  private readonly table = new Map<string, CatalogRecord>();
  private manifest: { data: LazyManifest; at: Map<string, number> } | undefined;
  /** Problems by file path relative to the root (`foo.md`, `<structure_id>/foo.md`). */
  readonly problems = new Map<string, CatalogProblem>();
  private readonly shadows = new Shadows();

  constructor(readonly index: SkillSearchIndex) {}

  /** Starts from a persisted manifest, materialised into records on first use; throws when it is malformed. */
  adopt(manifest: LazyManifest): void {
    const count = manifest.keys.length;
    if (manifest.mtimes.length !== count || manifest.sizes.length !== count || this.table.size > 0) throw new TypeError('malformed manifest');
    const at = new Map<string, number>();
    manifest.keys.forEach((key, i) => at.set(key, i));
    if (at.size !== count) throw new TypeError('malformed manifest');
    this.manifest = { data: manifest, at };
  }

  /** Every live skill's record, by key (materialises a persisted manifest on first use). */
  get records(): ReadonlyMap<string, CatalogRecord> {
    return this.materialised();
  }

  private materialised(): Map<string, CatalogRecord> {
    const pending = this.manifest;
    if (pending) {
      this.manifest = undefined;
      const entries = JSON.parse(pending.data.entries()) as unknown;
      if (!Array.isArray(entries) || entries.length !== pending.data.keys.length) throw new TypeError('malformed manifest');
      pending.data.keys.forEach((key, i) => {
        const entry = entries[i] as SkillListEntry;
        this.table.set(key, { entry, mtimeMs: pending.data.mtimes[i] as number, size: pending.data.sizes[i] as number });
        this.shadows.add(entry);
      });
    }
    return this.table;
  }

  /** The file signature of a live skill, without materialising the manifest. */
  signatureOf(key: string): FileSignature | undefined {
    if (this.manifest) {
      const i = this.manifest.at.get(key);
      return i === undefined ? undefined : { mtimeMs: this.manifest.data.mtimes[i] as number, size: this.manifest.data.sizes[i] as number };
    }
    return this.table.get(key);
  }

  /** Keys of the live skills, without materialising the manifest. */
  keys(): string[] {
    return this.manifest ? [...this.manifest.data.keys] : [...this.table.keys()];
  }

  /** Number of live skills. */
  get count(): number {
    return this.manifest ? this.manifest.data.keys.length : this.table.size;
  }

  /** True when the catalog holds a live skill `slug` in the scope of `structureId` (the instance library when undefined). */
  has(slug: string, structureId?: string): boolean {
    return this.signatureOf(keyOf(slug, structureId)) !== undefined;
  }

  /**
   * The instance slugs a structure does not see because it replaced them (see
   * `visibility.ts`). A persisted manifest is read only when it holds structure skills.
   */
  hiddenFor(structureId: string | undefined): Hidden {
    if (this.manifest && this.manifest.data.keys.some((key) => key.includes('/'))) this.materialised();
    return this.shadows.hiddenFor(structureId);
  }

  /** True when the catalog already holds exactly this version of the file. */
  isCurrent(key: string, signature: FileSignature): boolean {
    const held = this.signatureOf(key) ?? this.problems.get(relativeFile(key));
    return held !== undefined && held.mtimeMs === signature.mtimeMs && held.size === signature.size;
  }

  /** Adds or replaces a skill (list entry and index document). */
  put(skill: Skill, signature: FileSignature): void {
    const key = keyOf(skill.slug, skill.frontmatter.structure_id);
    this.problems.delete(relativeFile(key));
    this.setRecord(key, { entry: toListEntry(skill), ...signature });
    this.index.set(toSearchDocument(skill));
  }

  /** Applies a slice of files parsed elsewhere ({@link parseSlice}, maybe in a worker thread), in order. */
  putSlice(slice: ParsedSlice): void {
    for (const file of slice.files) {
      if (file.kind === 'skill') {
        this.problems.delete(relativeFile(file.key));
        this.setRecord(file.key, { entry: file.entry, ...file.signature });
      } else if (file.kind === 'problem') {
        this.putProblem(relativeFile(file.key), file.message, file.signature, file.line, file.structureId);
      }
    }
    this.index.addBatch(slice.batch);
  }

  /**
   * Records a file that does not load (at `line` of it, when known), by its path
   * relative to the root; a skill of that file leaves the catalog. The problem concerns
   * `owner` when given, else the structure whose folder holds the file (none: the
   * instance library's).
   */
  putProblem(file: string, message: string, signature: FileSignature, line?: number, owner?: string): void {
    if (file.endsWith('.md')) this.drop(file.slice(0, -3));
    const structureId = owner ?? problemOwner(file);
    this.problems.set(file, { file, message, ...(line ? { line } : {}), ...signature, ...(structureId !== undefined ? { structure_id: structureId } : {}) });
  }

  /** Removes a skill (and any problem recorded for its file); false when nothing was there. */
  drop(key: string): boolean {
    const hadProblem = this.problems.delete(relativeFile(key));
    // Only a skill held makes the records materialise (a bad file name never does).
    let had = false;
    if (this.signatureOf(key) !== undefined) {
      const table = this.materialised();
      const record = table.get(key);
      if (record) this.shadows.remove(record.entry);
      had = table.delete(key);
    }
    this.index.remove(key);
    return had || hadProblem;
  }

  private setRecord(key: string, record: CatalogRecord): void {
    const table = this.materialised();
    const old = table.get(key);
    if (old) this.shadows.remove(old.entry);
    table.set(key, record);
    this.shadows.add(record.entry);
  }
}
