/**
 * A batch of documents analysed for the index in flat form: one table of the batch's
 * stems and one of its words, and per document its field lengths, its postings entries
 * (stem, packed field and frequency) and its words, all in typed arrays. It is what a
 * worker thread sends back for a slice of a library being loaded: a few arrays and
 * strings cross the thread boundary (the arrays moved, not copied) instead of a map per
 * field per document, and the index adds it with one stem lookup per distinct stem of
 * the batch rather than one per entry. Entries and words keep the order a document-by-
 * document `set` would give them, so the index built is the same.
 */
import { analyseDocument, documentFacts, type DocumentFacts, type SearchDocument } from './document.js';
import { packFieldTf } from './postings.js';
import { SEARCH_FIELDS } from './tuning.js';

const FIELDS = SEARCH_FIELDS.length;

/** Documents analysed in flat form (see the module comment). */
export interface AnalysedBatch {
  facts: DocumentFacts[];
  /** The batch's stems, in order of first use. */
  stems: string[];
  /** The batch's words as written, in order of first use, and each one's stem (index into `stems`). */
  words: string[];
  wordStem: Uint32Array;
  /** `FIELDS` content-word counts per document. */
  lengths: Uint16Array;
  /** Document `d` owns entries `entryEnd[d-1]` (0 for the first) to `entryEnd[d]`. */
  entryEnd: Uint32Array;
  entryStem: Uint32Array;
  entryPacked: Uint16Array;
  /** Document `d` owns `docWords` from `wordEnd[d-1]` to `wordEnd[d]` (indexes into `words`). */
  wordEnd: Uint32Array;
  docWords: Uint32Array;
}

/** Builds an {@link AnalysedBatch} document by document. */
export class BatchBuilder {
  private readonly facts: DocumentFacts[] = [];
  private readonly stemIds = new Map<string, number>();
  private readonly stems: string[] = [];
  private readonly wordIds = new Map<string, number>();
  private readonly words: string[] = [];
  private readonly wordStem: number[] = [];
  private readonly lengths: number[] = [];
  private readonly entryEnd: number[] = [];
  private readonly entryStem: number[] = [];
  private readonly entryPacked: number[] = [];
  private readonly wordEnd: number[] = [];
  private readonly docWords: number[] = [];

  /** Analyses and appends a document. */
  add(doc: SearchDocument): void {
    const analysed = analyseDocument(doc);
    this.facts.push(documentFacts(doc));
    analysed.fields.forEach((counts, field) => {
      for (const [stem, tf] of counts) {
        this.entryStem.push(this.stemId(stem));
        this.entryPacked.push(packFieldTf(field, tf));
      }
    });
    this.entryEnd.push(this.entryStem.length);
    for (const [word, stem] of analysed.words) {
      let id = this.wordIds.get(word);
      if (id === undefined) {
        id = this.words.length;
        this.wordIds.set(word, id);
        this.words.push(word);
        this.wordStem.push(this.stemId(stem));
      }
      this.docWords.push(id);
    }
    this.wordEnd.push(this.docWords.length);
    for (let f = 0; f < FIELDS; f++) this.lengths.push(Math.min(analysed.lengths[f] ?? 0, 0xffff));
  }

  /** The batch so far. */
  build(): AnalysedBatch {
    return {
      facts: this.facts,
      stems: this.stems,
      words: this.words,
      wordStem: Uint32Array.from(this.wordStem),
      lengths: Uint16Array.from(this.lengths),
      entryEnd: Uint32Array.from(this.entryEnd),
      entryStem: Uint32Array.from(this.entryStem),
      entryPacked: Uint16Array.from(this.entryPacked),
      wordEnd: Uint32Array.from(this.wordEnd),
      docWords: Uint32Array.from(this.docWords),
    };
  }

  private stemId(stem: string): number {
    let id = this.stemIds.get(stem);
    if (id === undefined) {
      id = this.stems.length;
      this.stemIds.set(stem, id);
      this.stems.push(stem);
    }
    return id;
  }
}

/** The buffers of a batch, to move rather than copy it to another thread. */
export function batchTransferList(batch: AnalysedBatch): ArrayBuffer[] {
  return [batch.wordStem, batch.lengths, batch.entryEnd, batch.entryStem, batch.entryPacked, batch.wordEnd, batch.docWords].map((array) => array.buffer as ArrayBuffer);
}
