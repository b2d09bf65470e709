/**
 * The library in memory: the search index (MiniSearch, which stores every skill's list
 * entry beside its text), the signature of each skill's file, and the files that did
 * not load, kept in step by id (the skill's slug). Every read of the store but `get` is
 * answered from here.
 */
import { filterEntries, type ListFilter } from './entry.js';
import { toSearchDocument, type SkillIndex } from './search/index.js';
import type { FileSignature } from './skill-file.js';
import type { Skill, SkillListEntry, SkillProblem } from './types.js';

/** The path of a skill's file relative to the skills folder. */
export function relativeFile(id: string): string {
  return `${id}.md`;
}

/** Live skills, their files' signatures, problems and the index. */
export class Catalog {
  /** Problems by file path relative to the root. */
  readonly problems = new Map<string, SkillProblem & FileSignature>();

  /** Starts from an index and the signatures of the files it holds (a snapshot), or empty ones. */
  constructor(
    readonly index: SkillIndex,
    private readonly signatures = new Map<string, FileSignature>(),
  ) {}

  /** Number of live skills (any status). */
  get count(): number {
    return this.signatures.size;
  }

  /** Ids of the live skills. */
  ids(): string[] {
    return [...this.signatures.keys()];
  }

  /** The signatures of the live skills' files, by id (what the snapshot keeps beside the index). */
  fileSignatures(): ReadonlyMap<string, FileSignature> {
    return this.signatures;
  }

  /** True when a live skill has this id. */
  has(id: string): boolean {
    return this.signatures.has(id);
  }

  /** The signature of a live skill's file. */
  signatureOf(id: string): FileSignature | undefined {
    return this.signatures.get(id);
  }

  /** The list entry of a live skill. */
  entry(id: string): SkillListEntry | undefined {
    return this.signatures.has(id) ? this.index.stored(id)?.entry : undefined;
  }

  /** True when the catalog already holds exactly this version of the file (as a skill or as a problem). */
  isCurrent(id: string, signature: FileSignature): boolean {
    const held = this.signatures.get(id) ?? this.problems.get(relativeFile(id));
    return held !== undefined && held.mtimeMs === signature.mtimeMs && held.size === signature.size;
  }

  /** Adds or replaces a skill: its index document (list entry included) and its file's signature. */
  put(skill: Skill, signature: FileSignature): void {
    const doc = toSearchDocument(skill, skill.slug);
    this.problems.delete(relativeFile(doc.id));
    this.index.set(doc);
    this.signatures.set(doc.id, signature);
  }

  /** Records a file that does not load (at `line` of it, when known); a skill of that id leaves the catalog. */
  putProblem(file: string, message: string, signature: FileSignature, line?: number): void {
    if (file.endsWith('.md')) this.drop(file.slice(0, -3));
    this.problems.set(file, { file, message, ...(line ? { line } : {}), ...signature });
  }

  /** Removes a skill (and any problem recorded for its file); false when nothing was there. */
  drop(id: string): boolean {
    const hadProblem = this.problems.delete(relativeFile(id));
    if (!this.signatures.has(id)) return hadProblem;
    this.signatures.delete(id);
    this.index.remove(id);
    return true;
  }

  /** Live skills the asker sees, filtered, sorted by slug. */
  list(filter: ListFilter = {}): SkillListEntry[] {
    const entries: SkillListEntry[] = [];
    for (const id of this.signatures.keys()) {
      const entry = this.index.stored(id)?.entry;
      if (entry) entries.push(entry);
    }
    return filterEntries(entries, filter);
  }
}
