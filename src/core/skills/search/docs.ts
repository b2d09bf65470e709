/**
 * The document table of the search index: one row per indexed skill version, addressed
 * by a dense integer id that the postings refer to. It holds what ranking and filtering
 * need per skill (slug, name, tags, status, scope, field lengths, triggers, successor hints)
 * in parallel arrays, typed where the values are numbers. Ids are only ever appended; a
 * replaced or removed skill's row is marked removed until the index is compacted.
 */
import { keyOf } from '../skill-key.js';
import type { SkillStatus } from '../types.js';
import type { Hidden } from '../visibility.js';
import { analyse, tokenize } from './analyzer.js';
import type { DocumentFacts } from './document.js';
import { SEARCH_FIELDS } from './tuning.js';

/** Status codes stored per document. */
export const STATUS = { draft: 0, complete: 1, deprecated: 2, removed: 3 } as const;
const STATUS_NAMES: readonly (SkillStatus | 'removed')[] = ['draft', 'complete', 'deprecated', 'removed'];

const FIELDS = SEARCH_FIELDS.length;

/** The serialisable content of a table (see `snapshot.ts`). */
export interface DocTableData {
  slugs: string[];
  names: string[];
  tags: string[][];
  status: Uint8Array;
  scope: Int32Array;
  scopes: string[];
  lengths: Uint16Array;
  triggers: Record<number, string[]>;
  successors: Record<number, string[]>;
}

/** What ranking reads of a document's labels, analysed once (see {@link DocTable.labelInfo}). */
export interface LabelInfo {
  /** The words as written of its name, tags and triggers. */
  words: Set<string>;
  /** The distinct stems of its name, in order. */
  name: string[];
  /** Each trigger with its distinct stems. */
  triggers: { text: string; stems: string[] }[];
}

const LABEL_CACHE = 4096;

const distinctStems = (text: string): string[] => [...new Set(analyse(text).map((w) => w.stem))];

/** Per-skill facts of the index. */
export class DocTable {
  /** Each document's skill key (`<slug>` or `<structure_id>/<slug>`, see `skill-key.ts`): its id. */
  slugs: string[] = [];
  names: string[] = [];
  tags: string[][] = [];
  status = new Uint8Array(64);
  /** Index into `scopes`, or -1 for a skill every structure sees. */
  scope = new Int32Array(64);
  scopes: string[] = [];
  /** Content words per field, `FIELDS` per document. */
  lengths = new Uint16Array(64 * FIELDS);
  /** Trigger texts of the documents that have any. */
  triggers = new Map<number, string[]>();
  /** Successor hints of deprecated documents. */
  successors = new Map<number, string[]>();
  /** Live document of each skill key. */
  readonly bySlug = new Map<string, number>();
  private readonly scopeIds = new Map<string, number>();
  /** Sum of the field lengths of live documents (for average lengths). */
  readonly lengthSums = new Float64Array(FIELDS);
  /** Number of live documents. */
  live = 0;
  /** Live documents of each structure (by index into `scopes`), and of all structures. */
  private scopeLive: number[] = [];
  scopedLive = 0;
  /** Sums of the field lengths of each structure's live documents, and of all structures'. */
  private scopeSums: Float64Array[] = [];
  private readonly scopedSums = new Float64Array(FIELDS);
  /** Analysed labels of recently ranked documents. */
  private readonly labelCache = new Map<number, LabelInfo>();

  /** Number of ids handed out (live or removed). */
  get count(): number {
    return this.slugs.length;
  }

  /** Appends a document and makes it the live one of its key; returns its id. */
  add(doc: DocumentFacts, lengths: ArrayLike<number>): number {
    const old = this.bySlug.get(doc.key);
    if (old !== undefined) this.remove(old);
    const id = this.slugs.length;
    this.grow(id + 1);
    this.slugs.push(doc.key);
    this.names.push(doc.name);
    this.tags.push(doc.tags);
    this.status[id] = STATUS[doc.status];
    this.scope[id] = doc.structure_id === undefined ? -1 : this.scopeId(doc.structure_id);
    for (let f = 0; f < FIELDS; f++) {
      const length = Math.min(lengths[f] ?? 0, 0xffff);
      this.lengths[id * FIELDS + f] = length;
      this.lengthSums[f] = (this.lengthSums[f] as number) + length;
    }
    if (doc.triggers.length > 0) this.triggers.set(id, doc.triggers);
    if (doc.successors && doc.successors.length > 0) this.successors.set(id, doc.successors);
    this.bySlug.set(doc.key, id);
    this.live++;
    this.countScope(id, 1);
    return id;
  }

  /**
   * The words as written of a document's labels: its name, tags and triggers (what a
   * person calls the skill, as opposed to what its body mentions).
   */
  labelsOf(id: number): Set<string> {
    return this.labelInfo(id).words;
  }

  /** A document's labels analysed for ranking, cached for the most recently ranked documents. */
  labelInfo(id: number): LabelInfo {
    let info = this.labelCache.get(id);
    if (info) return info;
    const triggers = this.triggers.get(id) ?? [];
    info = {
      words: new Set(tokenize([this.names[id] ?? '', ...(this.tags[id] ?? []), ...triggers].join(' '))),
      name: distinctStems(this.names[id] ?? ''),
      triggers: triggers.map((text) => ({ text, stems: distinctStems(text) })),
    };
    if (this.labelCache.size >= LABEL_CACHE) this.labelCache.delete(this.labelCache.keys().next().value as number);
    this.labelCache.set(id, info);
    return info;
  }

  /** Marks a document removed (its postings are skipped until compaction). */
  remove(id: number): void {
    if (this.status[id] === STATUS.removed) return;
    this.labelCache.delete(id);
    this.status[id] = STATUS.removed;
    for (let f = 0; f < FIELDS; f++) {
      this.lengthSums[f] = (this.lengthSums[f] as number) - (this.lengths[id * FIELDS + f] as number);
    }
    this.triggers.delete(id);
    this.successors.delete(id);
    if (this.bySlug.get(this.slugs[id] as string) === id) this.bySlug.delete(this.slugs[id] as string);
    this.live--;
    this.countScope(id, -1);
  }

  /** The index into `scopes` of a structure's skills, or undefined when it has none indexed. */
  scopeIndex(structureId: string): number | undefined {
    return this.scopeIds.get(structureId);
  }

  /** Live documents of structure `scope` (an index into `scopes`). */
  liveIn(scope: number): number {
    return this.scopeLive[scope] ?? 0;
  }

  private countScope(id: number, by: 1 | -1): void {
    const scope = this.scope[id] as number;
    if (scope === -1) return;
    this.scopeLive[scope] = (this.scopeLive[scope] ?? 0) + by;
    this.scopedLive += by;
    const sums = (this.scopeSums[scope] ??= new Float64Array(FIELDS));
    for (let f = 0; f < FIELDS; f++) {
      const length = (this.lengths[id * FIELDS + f] as number) * by;
      sums[f] = (sums[f] as number) + length;
      this.scopedSums[f] = (this.scopedSums[f] as number) + length;
    }
  }

  /** Status name of a document. */
  statusOf(id: number): SkillStatus | 'removed' {
    return STATUS_NAMES[this.status[id] as number] ?? 'removed';
  }

  /**
   * True when structure `structureId` sees document `id`: its own skills, and instance
   * skills whose slug is not in `hidden` (those it replaced; see `visibility.ts`).
   */
  visibleTo(id: number, structureId: string | undefined, hidden?: Hidden): boolean {
    const scope = this.scope[id] as number;
    if (scope === -1) return !hidden?.has(this.slugs[id] as string);
    return structureId !== undefined && this.scopes[scope] === structureId;
  }

  /** The live document a structure reaches by `slug`: its own skill, else the instance skill it has not replaced. */
  resolve(slug: string, structureId: string | undefined, hidden?: Hidden): number | undefined {
    if (structureId !== undefined) {
      const own = this.bySlug.get(keyOf(slug, structureId));
      if (own !== undefined) return own;
    }
    return hidden?.has(slug) ? undefined : this.bySlug.get(slug);
  }

  /** The slug of document `id` (its key without the structure). */
  slugAt(id: number): string {
    const key = this.slugs[id] as string;
    return key.slice(key.indexOf('/') + 1);
  }

  /**
   * Average length of field `f` over the live documents a structure sees (at least 1):
   * the instance skills and, for `scope` (an index into `scopes`), its own. Without
   * structure skills in the library, over every live document.
   */
  averageLength(f: number, scope?: number): number {
    const own = scope === undefined ? 0 : this.liveIn(scope);
    const count = this.live - this.scopedLive + own;
    const sum = (this.lengthSums[f] as number) - (this.scopedSums[f] as number) + (scope === undefined ? 0 : ((this.scopeSums[scope]?.[f] as number | undefined) ?? 0));
    return count > 0 ? Math.max(1, sum / count) : 1;
  }

  /**
   * A table of the live documents only, renumbered in order, and the map from old to
   * new ids (-1 for removed ones).
   */
  compacted(): { table: DocTable; remap: Int32Array } {
    const remap = new Int32Array(this.count).fill(-1);
    const table = new DocTable();
    table.grow(this.live);
    for (let id = 0; id < this.count; id++) {
      if (this.status[id] === STATUS.removed) continue;
      const next = table.slugs.length;
      remap[id] = next;
      table.slugs.push(this.slugs[id] as string);
      table.names.push(this.names[id] as string);
      table.tags.push(this.tags[id] as string[]);
      table.status[next] = this.status[id] as number;
      const scope = this.scope[id] as number;
      table.scope[next] = scope === -1 ? -1 : table.scopeId(this.scopes[scope] as string);
      table.lengths.set(this.lengths.subarray(id * FIELDS, (id + 1) * FIELDS), next * FIELDS);
      const triggers = this.triggers.get(id);
      if (triggers) table.triggers.set(next, triggers);
      const successors = this.successors.get(id);
      if (successors) table.successors.set(next, successors);
      table.bySlug.set(this.slugs[id] as string, next);
      table.countScope(next, 1);
    }
    table.lengthSums.set(this.lengthSums);
    table.live = this.live;
    return { table, remap };
  }

  /** The table's content for a snapshot (live documents only: compact first). */
  toData(): DocTableData {
    const n = this.count;
    return {
      slugs: this.slugs,
      names: this.names,
      tags: this.tags,
      status: this.status.subarray(0, n),
      scope: this.scope.subarray(0, n),
      scopes: this.scopes,
      lengths: this.lengths.subarray(0, n * FIELDS),
      triggers: Object.fromEntries(this.triggers),
      successors: Object.fromEntries(this.successors),
    };
  }

  /** Rebuilds a table from snapshot data; throws on inconsistent data. */
  static fromData(data: DocTableData): DocTable {
    const n = data.slugs.length;
    if (data.names.length !== n || data.tags.length !== n || data.status.length !== n || data.scope.length !== n || data.lengths.length !== n * FIELDS) {
      throw new TypeError('malformed document table');
    }
    const table = new DocTable();
    table.slugs = data.slugs;
    table.names = data.names;
    table.tags = data.tags;
    table.status = Uint8Array.from(data.status);
    table.scope = Int32Array.from(data.scope);
    table.lengths = Uint16Array.from(data.lengths);
    data.scopes.forEach((scope) => table.scopeId(scope));
    for (const [id, list] of Object.entries(data.triggers)) table.triggers.set(Number(id), list);
    for (const [id, list] of Object.entries(data.successors)) table.successors.set(Number(id), list);
    for (let id = 0; id < n; id++) {
      if (table.status[id] === STATUS.removed) continue;
      table.bySlug.set(table.slugs[id] as string, id);
      table.live++;
      table.countScope(id, 1);
      for (let f = 0; f < FIELDS; f++) {
        table.lengthSums[f] = (table.lengthSums[f] as number) + (table.lengths[id * FIELDS + f] as number);
      }
    }
    return table;
  }

  private scopeId(scope: string): number {
    let id = this.scopeIds.get(scope);
    if (id === undefined) {
      id = this.scopes.length;
      this.scopes.push(scope);
      this.scopeIds.set(scope, id);
    }
    return id;
  }

  private grow(size: number): void {
    if (size <= this.status.length) return;
    const capacity = Math.max(size, this.status.length * 2);
    const status = new Uint8Array(capacity);
    status.set(this.status);
    this.status = status;
    const scope = new Int32Array(capacity);
    scope.set(this.scope);
    this.scope = scope;
    const lengths = new Uint16Array(capacity * FIELDS);
    lengths.set(this.lengths);
    this.lengths = lengths;
  }
}
