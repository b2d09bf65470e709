/**
 * The binary snapshot of a search index, with room for the caller's own metadata:
 *
 *     "ORGSKIX2" · u32 header length · u32 CRC-32 · header JSON · padding · sections
 *
 * The CRC-32 covers the header and the sections and is checked at load: a damaged file
 * is rejected whole then, never trusted in part by a section decoded later.
 * The header holds the metadata, the document table's strings (slugs, names, scopes,
 * triggers, successor hints) and where each section lies. Sections are the typed arrays
 * of the document table and of the postings, each 8-byte aligned, used in place as
 * views of the file's buffer, the sorted stems and words as newline-joined UTF-8, and
 * the caller's own sections (number columns and text).
 * Decoding parses only the header: the postings and their strings are decoded on the
 * first search that needs them.
 */
import { crc32 } from 'node:zlib';
import type { DocTableData } from './docs.js';
import type { SkillSearchIndexData } from './engine.js';
import type { BasePostings } from './postings.js';

const MAGIC = Buffer.from('ORGSKIX2', 'latin1');
/** Magic, header length, CRC-32 of the header and the sections. */
const PREFIX = MAGIC.length + 8;

type ArrayKind = 'u8' | 'u16' | 'u32' | 'i32' | 'f64' | 'utf8';
/** `length`: elements of a typed array, bytes of UTF-8 text (`count`: its lines). */
type Section = { kind: ArrayKind; offset: number; length: number; count?: number };
type Sections = Record<string, Section>;

interface Header {
  meta: unknown;
  docs: Omit<DocTableData, 'status' | 'scope' | 'lengths'>;
  sections: Sections;
}

const CONSTRUCTORS = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array, f64: Float64Array } as const;

/** Sections of the caller's own: number columns, or text decoded only when asked for. */
export type ExtraSections = Record<string, Float64Array | string>;

/** The caller's sections of a decoded snapshot. */
export interface ExtraReader {
  /** A number column (a view of the file's buffer); throws a TypeError when absent. */
  numbers(name: string): Float64Array;
  /** A text section, decoded now; throws a TypeError when absent. */
  text(name: string): string;
}

/** Names of the index's own sections (the caller's are prefixed, so they never clash). */
const EXTRA = 'x:';

/** Encodes an index, the caller's metadata (anything JSON can hold) and the caller's own sections. */
export function encodeSnapshot(meta: unknown, data: SkillSearchIndexData, extra: ExtraSections = {}): Buffer {
  const base = typeof data.base === 'function' ? data.base() : data.base;
  const parts: { name: string; kind: ArrayKind; bytes: Uint8Array; length: number; count?: number }[] = [];
  const add = (name: string, kind: ArrayKind, array: ArrayBufferView & { length: number }, count?: number) => {
    parts.push({ name, kind, bytes: new Uint8Array(array.buffer, array.byteOffset, array.byteLength), length: array.length, ...(count !== undefined ? { count } : {}) });
  };
  add('status', 'u8', data.docs.status);
  add('scope', 'i32', data.docs.scope);
  add('lengths', 'u16', data.docs.lengths);
  add('offsets', 'u32', base.offsets);
  add('postings', 'u32', base.docs);
  add('fieldTf', 'u16', base.fieldTf);
  add('df', 'u32', base.df);
  add('wordStem', 'u32', base.wordStem);
  const terms = Buffer.from(base.terms.join('\n'), 'utf8');
  const words = Buffer.from(base.words.join('\n'), 'utf8');
  add('terms', 'utf8', terms, base.terms.length);
  add('words', 'utf8', words, base.words.length);
  for (const [name, value] of Object.entries(extra)) {
    if (typeof value === 'string') add(`${EXTRA}${name}`, 'utf8', Buffer.from(value, 'utf8'));
    else add(`${EXTRA}${name}`, 'f64', value);
  }

  const sections: Sections = {};
  let offset = 0;
  for (const part of parts) {
    sections[part.name] = { kind: part.kind, offset, length: part.kind === 'utf8' ? part.bytes.length : part.length, ...(part.count !== undefined ? { count: part.count } : {}) };
    offset = align(offset + part.bytes.length);
  }
  const { status: _s, scope: _c, lengths: _l, ...docStrings } = data.docs;
  const header: Header = { meta, docs: docStrings, sections };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const start = align(PREFIX + json.length);
  const out = Buffer.alloc(start + offset);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(json.length, MAGIC.length);
  json.copy(out, PREFIX);
  for (const part of parts) out.set(part.bytes, start + (sections[part.name] as Section).offset);
  out.writeUInt32LE(crc32(out.subarray(PREFIX)), MAGIC.length + 4);
  return out;
}

/** Decodes a snapshot; throws a TypeError when it is not one or is damaged. */
export function decodeSnapshot(buffer: Buffer): { meta: unknown; index: SkillSearchIndexData; extra: ExtraReader } {
  if (buffer.length < PREFIX || !buffer.subarray(0, MAGIC.length).equals(MAGIC)) throw new TypeError('not an index snapshot');
  const length = buffer.readUInt32LE(MAGIC.length);
  if (PREFIX + length > buffer.length) throw new TypeError('truncated index snapshot');
  // Checked before anything is read: a damaged file is rejected whole, never trusted in part.
  if (crc32(buffer.subarray(PREFIX)) !== buffer.readUInt32LE(MAGIC.length + 4)) throw new TypeError('damaged index snapshot');
  const header = JSON.parse(buffer.toString('utf8', PREFIX, PREFIX + length)) as Header;
  const start = align(PREFIX + length);
  const section = (name: string): Section => {
    const found = header.sections?.[name];
    if (!found || !Number.isInteger(found.offset) || !Number.isInteger(found.length)) throw new TypeError(`index snapshot lacks ${name}`);
    return found;
  };
  const typed = <K extends Exclude<ArrayKind, 'utf8'>>(name: string, kind: K): InstanceType<(typeof CONSTRUCTORS)[K]> => {
    const { offset, length: count, kind: stored } = section(name);
    if (stored !== kind) throw new TypeError(`index snapshot section ${name} has the wrong type`);
    const Ctor = CONSTRUCTORS[kind];
    const at = buffer.byteOffset + start + offset;
    const memory = buffer.buffer as ArrayBuffer;
    if (start + offset + count * Ctor.BYTES_PER_ELEMENT > buffer.length) throw new TypeError('truncated index snapshot');
    // A view when aligned (the usual case: large reads get their own buffer); a copy otherwise.
    if (at % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(memory, at, count) as InstanceType<(typeof CONSTRUCTORS)[K]>;
    return new Ctor(memory.slice(at, at + count * Ctor.BYTES_PER_ELEMENT)) as InstanceType<(typeof CONSTRUCTORS)[K]>;
  };
  const strings = (name: string): string[] => {
    const { offset, length: bytes } = section(name);
    if (start + offset + bytes > buffer.length) throw new TypeError('truncated index snapshot');
    return bytes === 0 ? [] : buffer.toString('utf8', start + offset, start + offset + bytes).split('\n');
  };
  const docs: DocTableData = {
    ...header.docs,
    status: typed('status', 'u8'),
    scope: typed('scope', 'i32'),
    lengths: typed('lengths', 'u16'),
  };
  // Checked now, so that a damaged file is rejected at load rather than at the first search.
  for (const [name, found] of Object.entries(header.sections ?? {})) {
    const width = found.kind === 'utf8' ? 1 : CONSTRUCTORS[found.kind].BYTES_PER_ELEMENT;
    if (start + section(name).offset + found.length * width > buffer.length) throw new TypeError('truncated index snapshot');
  }
  const termCount = section('terms').count ?? -1;
  const offsets = typed('offsets', 'u32');
  const postings = typed('postings', 'u32');
  if (
    offsets.length !== termCount + 1 ||
    offsets[termCount] !== postings.length ||
    typed('fieldTf', 'u16').length !== postings.length ||
    typed('df', 'u32').length !== termCount ||
    typed('wordStem', 'u32').length !== (section('words').count ?? -1) ||
    docs.slugs.length !== docs.status.length
  ) {
    throw new TypeError('inconsistent index snapshot');
  }
  const base = (): BasePostings => ({
    terms: strings('terms'),
    offsets,
    docs: postings,
    fieldTf: typed('fieldTf', 'u16'),
    df: typed('df', 'u32'),
    words: strings('words'),
    wordStem: typed('wordStem', 'u32'),
  });
  const extra: ExtraReader = {
    numbers: (name) => typed(`${EXTRA}${name}`, 'f64'),
    text: (name) => {
      const { offset, length: bytes, kind } = section(`${EXTRA}${name}`);
      if (kind !== 'utf8') throw new TypeError(`index snapshot section ${name} has the wrong type`);
      return buffer.toString('utf8', start + offset, start + offset + bytes);
    },
  };
  return { meta: header.meta, index: { docs, base }, extra };
}

function align(offset: number): number {
  return (offset + 7) & ~7;
}
