/**
 * The quota of a structure's artifact shelves (issue finding 10): the files staged from
 * attachments and written by agents, on every node of a structure together, may take at
 * most `maxBytes`. Writes of one structure are checked and made one at a time, so that
 * concurrent uploads cannot together pass it. A write that cannot fit is refused before
 * anything is written: 413 `payload_too_large` when it is larger than what is left, 507
 * `insufficient_storage` when the shelves are already full.
 */
import { OrgError } from '../errors.js';
import { KeyedMutex } from '../storage/index.js';
import { safeName, type ArtifactInfo, type ArtifactOrigin, type ArtifactShelf } from './artifacts.js';

/** Bytes the shelves of one structure may hold by default (512 MiB). */
export const DEFAULT_ARTIFACT_QUOTA = 512 * 1024 * 1024;

const MIB = 1024 * 1024;

/** Bytes as the messages say them. */
function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(bytes < 10 * MIB ? 1 : 0)} MiB`;
}

/** What the quota needs to know. */
export interface ShelfQuotaOptions {
  /** Bytes a structure's shelves may hold. */
  maxBytes: number;
  /** Bytes the shelves of a structure hold now (every node's artifacts). */
  usage(structureId: string): Promise<number>;
}

/** The quota of every structure's shelves. */
export class ShelfQuota {
  private readonly lock = new KeyedMutex();

  constructor(private readonly options: ShelfQuotaOptions) {
    if (!Number.isFinite(options.maxBytes) || options.maxBytes < 1) throw new OrgError('invalid_request', 'the artifact quota must be a positive number of bytes');
  }

  /** Bytes a structure may hold. */
  get maxBytes(): number {
    return this.options.maxBytes;
  }

  /**
   * Runs `write` once `bytes` more (less what `replaced` says the write frees: the size of
   * an artifact it replaces) fit in the structure's quota; throws 413 or 507 (see the
   * module comment) otherwise.
   */
  admit<T>(structureId: string, bytes: number, replaced: () => Promise<number>, write: () => Promise<T>): Promise<T> {
    return this.lock.run(structureId, async () => {
      const used = await this.options.usage(structureId);
      this.check(used - (await replaced()), bytes);
      return write();
    });
  }

  /** Throws when `bytes` do not fit beside `used` (no lock: also the pre-check of several writes, so that none is written when all cannot be). */
  check(used: number, bytes: number): void {
    const max = this.options.maxBytes;
    if (used + bytes <= max) return;
    const raise = 'delete artifacts of its nodes or ask the operator to raise --artifact-quota (ORG_ARTIFACT_QUOTA)';
    if (used >= max) throw new OrgError('insufficient_storage', `the artifact shelves of this structure are full (${mib(used)} of ${mib(max)}); ${raise}`);
    throw new OrgError('payload_too_large', `${mib(bytes)} of artifacts do not fit in what is left of this structure's shelves (${mib(max - used)} of ${mib(max)}); send less, or ${raise}`);
  }

  /** `shelf` with every write admitted by the quota of `structureId`. */
  limit(shelf: ArtifactShelf, structureId: string): ArtifactShelf {
    return {
      get dir() {
        return shelf.dir;
      },
      get bytes() {
        return shelf.bytes;
      },
      list: () => shelf.list(),
      open: (name) => shelf.open(name),
      write: async (name: string, data: Buffer | string, contentType: string, origin?: ArtifactOrigin): Promise<ArtifactInfo> => {
        const size = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.length;
        const safe = safeName(name);
        // An artifact of the same name is replaced: its room is freed.
        const replaced = async () => (await shelf.list()).find((info) => info.name === safe)?.size ?? 0;
        return this.admit(structureId, size, replaced, () => shelf.write(name, data, contentType, origin));
      },
    };
  }
}
