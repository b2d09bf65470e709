/**
 * The library in memory: the search indexes (MiniSearch, which stores every skill's list
 * entry beside its text; one view per structure with skills of its own, see
 * `search/scoped-index.ts`), the signature of each skill's file, the files that did not
 * load, and the instance skills each structure replaced (see `visibility.ts`), kept in
 * step by key (`<slug>` for an instance skill, `<structure_id>/<slug>` for a structure's:
 * see `skill-key.ts`). Every read of the store but `get` is answered from here.
 */
import { filterEntries, type ListFilter } from './entry.js';
import { toSearchDocument, type ScopedSkillIndex } from './search/index.js';
import type { FileSignature } from './skill-file.js';
import { isStructureFolderName, keyOf, relativeFile } from './skill-key.js';
import type { Skill, SkillListEntry, SkillProblem } from './types.js';
import { Shadows, type Hidden } from './visibility.js';

/** A load problem as the catalog keeps it: with the file's signature, and the structure whose folder holds it. */
export type CatalogProblem = SkillProblem & FileSignature & { structure_id?: string };

/** The structure whose folder holds `file` (a path relative to the root), or undefined for the instance library's. */
export function problemOwner(file: string): string | undefined {
  const at = file.indexOf('/');
  const folder = at < 0 ? undefined : file.slice(0, at);
  return folder !== undefined && isStructureFolderName(folder) ? folder : undefined;
}

/** Live skills, their files' signatures, problems and the index. */
export class Catalog {
  /** Problems by file path relative to the root (`foo.md`, `<structure_id>/foo.md`). */
  readonly problems = new Map<string, CatalogProblem>();
  private readonly shadows = new Shadows();

  /** Starts from an index and the signatures of the files it holds (a snapshot), or empty ones. */
  constructor(
    readonly index: ScopedSkillIndex,
    private readonly signatures = new Map<string, FileSignature>(),
  ) {
    for (const key of signatures.keys()) {
      const entry = key.includes('/') ? index.stored(key)?.entry : undefined;
      if (entry) this.shadows.add(entry);
    }
  }

  /** Number of live skills (any status, any structure). */
  get count(): number {
    return this.signatures.size;
  }

  /** Keys of the live skills. */
  keys(): string[] {
    return [...this.signatures.keys()];
  }

  /** The signatures of the live skills' files, by key (what the snapshot keeps beside the index). */
  fileSignatures(): ReadonlyMap<string, FileSignature> {
    return this.signatures;
  }

  /** True when the catalog holds a live skill `slug` in the scope of `structureId` (the instance library when undefined). */
  has(slug: string, structureId?: string): boolean {
    return this.signatures.has(keyOf(slug, structureId));
  }

  /** The signature of a live skill's file, by key. */
  signatureOf(key: string): FileSignature | undefined {
    return this.signatures.get(key);
  }

  /** The list entry of a live skill, by key. */
  entry(key: string): SkillListEntry | undefined {
    return this.signatures.has(key) ? this.index.stored(key)?.entry : undefined;
  }

  /** The instance slugs a structure does not see because it replaced them (see `visibility.ts`). */
  hiddenFor(structureId: string | undefined): Hidden {
    return this.shadows.hiddenFor(structureId);
  }

  /** True when the catalog already holds exactly this version of the file (as a skill or as a problem). */
  isCurrent(key: string, signature: FileSignature): boolean {
    const held = this.signatures.get(key) ?? this.problems.get(relativeFile(key));
    return held !== undefined && held.mtimeMs === signature.mtimeMs && held.size === signature.size;
  }

  /** Adds or replaces a skill: its index document (list entry included) and its file's signature. */
  put(skill: Skill, signature: FileSignature): void {
    const doc = toSearchDocument(skill);
    this.problems.delete(relativeFile(doc.id));
    const old = this.entry(doc.id);
    if (old) this.shadows.remove(old);
    this.index.set(doc);
    this.shadows.add(doc.skill.entry);
    this.signatures.set(doc.id, signature);
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
    if (!this.signatures.has(key)) return hadProblem;
    const old = this.entry(key);
    if (old) this.shadows.remove(old);
    this.signatures.delete(key);
    this.index.remove(key);
    return true;
  }

  /** Live skills a structure sees (its own, and the instance skills it has not replaced), filtered, sorted by slug. */
  list(filter: ListFilter = {}): SkillListEntry[] {
    const entries: SkillListEntry[] = [];
    for (const key of this.signatures.keys()) {
      const entry = this.index.stored(key)?.entry;
      if (entry) entries.push(entry);
    }
    return filterEntries(entries, filter, this.hiddenFor(filter.structureId));
  }
}
