/**
 * A slice of skill files read, parsed and analysed for the catalog, in a form that
 * crosses a worker thread boundary cheaply: per file its outcome (list entry and
 * signature, or the problem), and the skills' search documents analysed as one flat
 * batch (see `search/batch.ts`). Reading and analysing are most of the cost of loading
 * a library and adding the result to the catalog is cheap, so a large load parses
 * slices in worker threads and applies them on the main one.
 */
import { toListEntry } from './entry.js';
import { BatchBuilder, type AnalysedBatch } from './search/batch.js';
import { toSearchDocument } from './search/document.js';
import { readSkillFileSync, type FileSignature } from './skill-file.js';
import { parseKey } from './skill-key.js';
import type { SkillListEntry } from './types.js';

/** What reading one skill file gave, by skill key (a skill's search document is in the slice's batch). */
export type FileOutcome =
  | { kind: 'skill'; key: string; entry: SkillListEntry; signature: FileSignature }
  | { kind: 'problem'; key: string; message: string; signature: FileSignature; line?: number; structureId?: string }
  | { kind: 'missing'; key: string };

/** Parsed files, in order, and the analysed documents of the skills among them, in the same order. */
export interface ParsedSlice {
  files: FileOutcome[];
  batch: AnalysedBatch;
}

/** Reads, parses and analyses the file of each skill key (`<slug>` or `<structure_id>/<slug>`); never throws for a bad file. */
export function parseSlice(root: string, keys: readonly string[]): ParsedSlice {
  const files: FileOutcome[] = [];
  const batch = new BatchBuilder();
  for (const key of keys) {
    const outcome = readSkillFileSync(root, parseKey(key));
    if (outcome === 'unchanged' || outcome.kind === 'missing') {
      files.push({ kind: 'missing', key });
    } else if (outcome.kind === 'problem') {
      files.push({
        kind: 'problem',
        key,
        message: outcome.message,
        signature: outcome.signature,
        ...(outcome.line ? { line: outcome.line } : {}),
        ...(outcome.structureId !== undefined ? { structureId: outcome.structureId } : {}),
      });
    } else {
      files.push({ kind: 'skill', key, entry: toListEntry(outcome.skill), signature: outcome.signature });
      batch.add(toSearchDocument(outcome.skill));
    }
  }
  return { files, batch: batch.build() };
}
