/**
 * A node's artifact shelf: files staged from chat attachments and written by agents.
 * `ArtifactShelf` is the interface, with one implementation per backend; the
 * filesystem one (`FsArtifactShelf`) keeps them under
 * `.org/structures/<id>/nodes/<node_id>/artifacts/`, with their metadata in
 * `artifacts.json`. Names are reduced to safe base names and files are never reached
 * through a link, so nothing can be written or read outside the shelf. Names are the
 * users' own: they are kept in a list on disk and a `Map` in memory, never as keys of a
 * plain object (`__proto__`, `constructor` and `toString` are ordinary names here).
 */
import type { Readable } from 'node:stream';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { invalid, notFound } from '../errors.js';
import { JsonFile, openReadStream, readJson, writeAtomic } from '../storage/index.js';
import type { ArtifactInfo, ChatAttachment } from '../schemas/chat.js';
import { isoNow, mediaTypeOr, type Clock, systemClock } from '../util/index.js';

export type { ArtifactInfo } from '../schemas/chat.js';

/** How an artifact reached the shelf. */
export type ArtifactSource = NonNullable<ArtifactInfo['source']>;

/** Which run stored an artifact, and how. */
export interface ArtifactOrigin {
  runId: string;
  source: ArtifactSource;
}

/**
 * `artifacts.json`. Version 1 kept a name-keyed object (which lost an artifact named
 * `__proto__`); it is read as a list and written back as version 2.
 */
type ShelfDoc = { version: 2; artifacts: ArtifactInfo[] } | { version: 1; artifacts: Record<string, ArtifactInfo> };

/** The artifacts of a shelf document of either version, as a list. */
function listOf(doc: ShelfDoc | undefined): ArtifactInfo[] {
  if (!doc || typeof doc.artifacts !== 'object' || doc.artifacts === null) return [];
  return Array.isArray(doc.artifacts) ? doc.artifacts : Object.values(doc.artifacts);
}

/** Name of the metadata file beside a node's `artifacts/` folder. */
const SHELF_FILE = 'artifacts.json';
/** Name of the folder holding a node's artifacts. */
export const SHELF_DIR = 'artifacts';

/**
 * The names listed in a node's `artifacts.json` (for the start-up sweep, which must keep
 * a user's file named like a temp file, `data.json.1`, when it is a listed artifact).
 */
export async function listedArtifacts(nodeDir: string): Promise<Set<string>> {
  const doc = await readJson<ShelfDoc | undefined>(join(nodeDir, SHELF_FILE), undefined);
  return new Set(listOf(doc).map((info) => info.name));
}

/**
 * A `keep` rule for sweeping temp files under `.org/`: a file in an `artifacts/`
 * folder is kept when it is a listed artifact. Listings are read once per folder.
 */
export function keepListedArtifacts(): (dir: string, name: string) => Promise<boolean> {
  const listings = new Map<string, Promise<Set<string>>>();
  return async (dir, name) => {
    if (basename(dir) !== SHELF_DIR) return false;
    let listing = listings.get(dir);
    if (!listing) {
      listing = listedArtifacts(dirname(dir));
      listings.set(dir, listing);
    }
    return (await listing).has(name);
  };
}

/** Limits of chat attachments (API.md §6). */
export const ATTACHMENT_LIMITS = { count: 10, bytes: 10 * 1024 * 1024 } as const;

/**
 * Reduces a client-supplied file name to a safe base name: no directory part, no
 * separators, no NUL or control characters, no leading dot, at most 200 characters.
 */
export function safeName(name: string): string {
  const base = name.replace(/\\/g, '/').split('/').pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').replace(/^[.\s]+/, '').trim().slice(0, 200);
  return cleaned.length > 0 ? cleaned : 'file';
}

/** A decoded attachment, ready to stage. */
export interface DecodedAttachment {
  name: string;
  content_type: string;
  data: Buffer;
}

/**
 * Strict base64 (standard alphabet, padded). Checked without a repeating regex group,
 * which overflows V8's regex stack on inputs of a few megabytes.
 */
function isBase64(text: string): boolean {
  if (text.length % 4 !== 0 || /[^A-Za-z0-9+/=]/.test(text)) return false;
  const pad = text.indexOf('=');
  return pad < 0 || (pad >= text.length - 2 && (text.length - pad === 1 || text[pad + 1] === '='));
}

/** Validates and decodes chat attachments; throws 400 naming the offending member. */
export function decodeAttachments(list: readonly ChatAttachment[] = []): DecodedAttachment[] {
  if (list.length > ATTACHMENT_LIMITS.count) {
    throw invalid(`at most ${ATTACHMENT_LIMITS.count} attachments are allowed, got ${list.length}`, [
      { path: 'body.attachments', message: `must have at most ${ATTACHMENT_LIMITS.count} items` },
    ]);
  }
  return list.map((attachment, index) => {
    const path = `body.attachments.${index}.content_base64`;
    const text = attachment.content_base64.replace(/\s+/g, '');
    if (!isBase64(text)) throw invalid(`attachment ${index} is not valid base64`, [{ path, message: 'must be valid base64' }]);
    const data = Buffer.from(text, 'base64');
    if (data.length > ATTACHMENT_LIMITS.bytes) {
      throw invalid(`attachment ${index} is larger than 10 MiB`, [{ path, message: 'must decode to at most 10 MiB' }]);
    }
    return { name: safeName(attachment.name), content_type: mediaTypeOr(attachment.content_type), data };
  });
}

/** One node's shelf, whatever the backend. */
export interface ArtifactShelf {
  /** A local folder where the files of this shelf can be read by a runtime (staged attachments). */
  readonly dir: string;
  /** Approximate memory the shelf holds (its listing, if it keeps one), for the engine's byte-bounded cache of shelves. */
  readonly bytes: number;
  /** Writes an artifact (replacing one of the same name); returns its metadata. */
  write(name: string, data: Buffer | string, contentType: string, origin?: ArtifactOrigin): Promise<ArtifactInfo>;
  /** Every artifact, newest first. */
  list(): Promise<ArtifactInfo[]>;
  /** Opens an artifact for download; 404 when absent or when the name is not a safe base name. */
  open(name: string): Promise<{ info: ArtifactInfo; stream: Readable }>;
}

/** Orders artifacts newest first (then by name). */
export function newestFirst(a: ArtifactInfo, b: ArtifactInfo): number {
  return b.created_at.localeCompare(a.created_at) || a.name.localeCompare(b.name);
}

/** One node's shelf in a filesystem home. */
export class FsArtifactShelf implements ArtifactShelf {
  private readonly doc: JsonFile<ShelfDoc>;
  private loaded: Promise<ShelfDoc> | undefined;
  /** The listing by name, rebuilt whenever the document changes. */
  private byName = new Map<string, ArtifactInfo>();
  readonly dir: string;

  constructor(
    nodeDir: string,
    private readonly clock: Clock = systemClock,
  ) {
    this.dir = join(nodeDir, SHELF_DIR);
    this.doc = new JsonFile<ShelfDoc>(join(nodeDir, SHELF_FILE), () => ({ version: 2, artifacts: [] }));
  }

  private ready(): Promise<ShelfDoc> {
    this.loaded ??= this.doc.load().then((doc) => {
      this.reindex();
      return doc;
    });
    return this.loaded;
  }

  private reindex(): void {
    this.byName = new Map(listOf(this.doc.current).map((info) => [info.name, info]));
  }

  private pathOf(name: string): string {
    const file = resolve(this.dir, name);
    if (!file.startsWith(resolve(this.dir) + sep)) throw invalid(`artifact name ${JSON.stringify(name)} is not allowed`);
    return file;
  }

  /** Approximate memory held by the listing, for the engine's byte-bounded cache of shelves. */
  get bytes(): number {
    let total = 512;
    for (const info of this.byName.values()) total += 160 + 2 * (info.name.length + info.content_type.length + info.created_at.length + JSON.stringify(info).length);
    return total;
  }

  /** Writes an artifact (replacing one of the same name), noting the run it came from; returns its metadata. */
  async write(name: string, data: Buffer | string, contentType: string, origin?: ArtifactOrigin): Promise<ArtifactInfo> {
    await this.ready();
    const safe = safeName(name);
    const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    await writeAtomic(this.pathOf(safe), buffer);
    const info: ArtifactInfo = {
      name: safe,
      size: buffer.length,
      // Whatever a runtime or an upload said, what is kept can be served as a Content-Type.
      content_type: mediaTypeOr(contentType),
      created_at: isoNow(this.clock),
      ...(origin ? { run_id: origin.runId, source: origin.source } : {}),
    };
    await this.doc.update((draft) => {
      const artifacts = listOf(draft).filter((existing) => existing.name !== safe);
      artifacts.push(info);
      Object.assign(draft, { version: 2, artifacts });
    });
    this.reindex();
    return info;
  }

  /** Every artifact, newest first. */
  async list(): Promise<ArtifactInfo[]> {
    await this.ready();
    return [...this.byName.values()].sort(newestFirst);
  }

  /** Opens an artifact for download (never through a link); 404 when absent or when the name is not a safe base name. */
  async open(name: string): Promise<{ info: ArtifactInfo; stream: Readable }> {
    await this.ready();
    const info = safeName(name) === name ? this.byName.get(name) : undefined;
    if (!info) throw notFound(`artifact ${JSON.stringify(name.slice(0, 200))} not found`);
    const path = this.pathOf(name);
    try {
      const { stream } = await openReadStream(path);
      return { info, stream };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`artifact ${JSON.stringify(name.slice(0, 200))} not found`);
      throw error;
    }
  }
}
