/**
 * The library's search, one MiniSearch per view of it, so that a structure's ranking
 * depends only on what it sees (API.md §10). MiniSearch weighs a word by how many of its
 * documents hold it, and normalises field lengths by its own averages: one index over
 * every structure's skills would let another structure's private skills move a
 * structure's scores and decide which query words are "known" (shown, with their weights,
 * by `explain`), a word-by-word oracle on their content. So:
 *
 * - the *library index* holds the instance skills, and answers whoever has no skills of
 *   its own (and searches made without a structure);
 * - each structure with skills of its own has its own index: a copy of the library index
 *   plus its own skills, kept in step with every instance edit.
 *
 * A structure's index is made when its first skill is indexed (a copy of the library's
 * MiniSearch, not a re-analysis of its text) and dropped with its last. The instance
 * skills a structure replaced stay in its index (they are public, so counting them leaks
 * nothing) and are filtered out of its answers by the store's visibility rule. The
 * snapshot is the library index's JSON plus each structure's own documents.
 */
import type { SearchMatch } from '../types.js';
import type { SearchDocument, StoredSkill } from './document.js';
import type { SearchExplanation } from './explain.js';
import { createSkillIndex, loadSkillIndex, type SearchLookup, type SkillExplainOptions, type SkillIndex, type SkillIndexOptions, type SkillSearchOptions } from './skill-index.js';
import type { SearchTuning } from './tuning.js';

/** A structure's index and its own documents (by id). */
interface StructureIndex {
  index: SkillIndex;
  own: Map<string, SearchDocument>;
}

/** The library's search, scoped by structure. */
export interface ScopedSkillIndex {
  /** Number of indexed skills (any status, any structure). */
  readonly size: number;
  has(id: string): boolean;
  /** What the index stores of a skill (its list entry among it). */
  stored(id: string): StoredSkill | undefined;
  /** Adds the document, or replaces the one with its id, in every index that holds it. */
  set(doc: SearchDocument): void;
  /** Discards a skill; false when it was not indexed. */
  remove(id: string): boolean;
  /** The index a structure's searches read (the library index without a structure or without skills of its own). */
  view(structureId: string | undefined): SkillIndex;
  search(query: string, options?: SkillSearchOptions): SearchMatch[];
  lookup(query: string, options?: SkillSearchOptions): SearchLookup;
  explain(query: string, options?: SkillExplainOptions): SearchExplanation;
  /** Structures that have an index of their own. */
  structures(): string[];
  /** The snapshot: the structures' own documents, then the library index's JSON. */
  toJSON(): string;
  /** The same indexes searched with other knobs (the evaluation's calibration runs). */
  withTuning(tuning: Partial<SearchTuning>): ScopedSkillIndex;
}

/** Creates an empty scoped index. */
export function createScopedIndex(options: SkillIndexOptions = {}): ScopedSkillIndex {
  return scoped(createSkillIndex(options), new Map());
}

/** Restores a scoped index from {@link ScopedSkillIndex.toJSON}; rejects when the text is not one. */
export async function loadScopedIndex(json: string, options: SkillIndexOptions = {}): Promise<ScopedSkillIndex> {
  const at = json.indexOf('\n');
  if (at < 0) throw new TypeError('not a skill index snapshot');
  const own = JSON.parse(json.slice(0, at)) as unknown;
  if (typeof own !== 'object' || own === null || Array.isArray(own)) throw new TypeError('not a skill index snapshot');
  const library = await loadSkillIndex(json.slice(at + 1), options);
  const index = scoped(library, new Map());
  for (const [structureId, docs] of Object.entries(own)) {
    if (!Array.isArray(docs)) throw new TypeError('not a skill index snapshot');
    for (const doc of docs as SearchDocument[]) {
      if (doc?.skill?.entry?.structure_id !== structureId || typeof doc.id !== 'string' || typeof doc.body !== 'string') throw new TypeError('not a skill index snapshot');
      index.set(doc);
    }
  }
  return index;
}

function scoped(library: SkillIndex, structures: Map<string, StructureIndex>): ScopedSkillIndex {
  const ownerOf = (id: string): StructureIndex | undefined => {
    const at = id.indexOf('/');
    return at < 0 ? undefined : structures.get(id.slice(0, at));
  };
  const view = (structureId: string | undefined): SkillIndex => (structureId === undefined ? library : (structures.get(structureId)?.index ?? library));
  let ownCount = [...structures.values()].reduce((sum, held) => sum + held.own.size, 0);

  return {
    get size() {
      return library.size + ownCount;
    },
    has: (id) => (ownerOf(id)?.own.has(id) ?? false) || (!id.includes('/') && library.has(id)),
    stored: (id) => (id.includes('/') ? ownerOf(id)?.index.stored(id) : library.stored(id)),
    set(doc) {
      const structureId = doc.skill.entry.structure_id;
      if (structureId === undefined) {
        library.set(doc);
        for (const { index } of structures.values()) index.set(doc);
        return;
      }
      let held = structures.get(structureId);
      if (!held) structures.set(structureId, (held = { index: library.copy(), own: new Map() }));
      if (!held.own.has(doc.id)) ownCount++;
      held.own.set(doc.id, doc);
      held.index.set(doc);
    },
    remove(id) {
      const at = id.indexOf('/');
      if (at < 0) {
        if (!library.remove(id)) return false;
        for (const { index } of structures.values()) index.remove(id);
        return true;
      }
      const structureId = id.slice(0, at);
      const held = structures.get(structureId);
      if (!held?.own.delete(id)) return false;
      ownCount--;
      // Its last skill gone, the structure reads the library index again.
      if (held.own.size === 0) structures.delete(structureId);
      else held.index.remove(id);
      return true;
    },
    view,
    search: (query, opts = {}) => view(opts.structureId).search(query, opts),
    lookup: (query, opts = {}) => view(opts.structureId).lookup(query, opts),
    explain: (query, opts = {}) => view(opts.structureId).explain(query, opts),
    structures: () => [...structures.keys()],
    toJSON() {
      const own: Record<string, SearchDocument[]> = {};
      for (const [structureId, held] of structures) own[structureId] = [...held.own.values()];
      return `${JSON.stringify(own)}\n${library.toJSON()}`;
    },
    withTuning(tuning) {
      const tuned = new Map<string, StructureIndex>();
      for (const [structureId, held] of structures) tuned.set(structureId, { index: held.index.withTuning(tuning), own: held.own });
      return scoped(library.withTuning(tuning), tuned);
    },
  };
}
