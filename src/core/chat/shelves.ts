/**
 * The artifact shelves of the nodes the engine works with: opened on demand (the
 * backend's, or the filesystem one in the node's folder), the open ones kept in a
 * byte- and count-bounded cache, and every write admitted by the structure's quota.
 */
import { BoundedCache, type Clock } from '../util/index.js';
import { FsArtifactShelf, safeName, type ArtifactShelf } from './artifacts.js';
import type { ChatDirectory } from './ports.js';
import { ShelfQuota } from './shelf-quota.js';

/** What the shelves need. */
export interface NodeShelvesOptions {
  directory: Pick<ChatDirectory, 'nodeDir' | 'structure'>;
  clock: Clock;
  /** Opens a node's shelf (default: the filesystem shelf in the node's folder). */
  openShelf?: (structureId: string, nodeId: string) => ArtifactShelf;
  /** Shelves kept open. */
  maxOpen: number;
  /** Approximate bytes of open shelves' listings. */
  maxBytes: number;
  /** Bytes the shelves of one structure may hold. */
  quotaBytes: number;
}

/** Every node's shelf, opened once and limited by its structure's quota. */
export class NodeShelves {
  private readonly open: BoundedCache<string, ArtifactShelf>;
  private readonly quota: ShelfQuota;

  constructor(private readonly options: NodeShelvesOptions) {
    this.open = new BoundedCache({ maxEntries: options.maxOpen, maxBytes: options.maxBytes });
    this.quota = new ShelfQuota({ maxBytes: options.quotaBytes, usage: (structureId) => this.usage(structureId) });
  }

  /** The shelf of a node, its writes admitted by the structure's quota. */
  of(structureId: string, nodeId: string): ArtifactShelf {
    return this.quota.limit(this.raw(structureId, nodeId), structureId);
  }

  /**
   * Throws 413/507 unless `files` (a message's attachments, before any is written) fit in
   * the structure's quota on the shelf of `nodeId`, where they replace artifacts of the same names.
   */
  async checkFits(structureId: string, nodeId: string, files: readonly { name: string; size: number }[]): Promise<void> {
    const sizes = new Map<string, number>();
    for (const file of files) sizes.set(safeName(file.name), file.size);
    let freed = 0;
    for (const info of await this.raw(structureId, nodeId).list()) if (sizes.has(info.name)) freed += info.size;
    let bytes = 0;
    for (const size of sizes.values()) bytes += size;
    this.quota.check((await this.usage(structureId)) - freed, bytes);
  }

  private raw(structureId: string, nodeId: string): ArtifactShelf {
    const key = `${structureId}/${nodeId}`;
    const shelf = this.open.get(key) ?? this.options.openShelf?.(structureId, nodeId) ?? new FsArtifactShelf(this.options.directory.nodeDir(structureId, nodeId), this.options.clock);
    // Re-measured on every use: a shelf's listing grows with its artifacts.
    this.open.set(key, shelf, shelf.bytes);
    return shelf;
  }

  /** Bytes the shelves of a structure's nodes hold. */
  private async usage(structureId: string): Promise<number> {
    let used = 0;
    for (const node of this.options.directory.structure(structureId).agents) {
      for (const info of await this.raw(structureId, node.id).list()) used += info.size;
    }
    return used;
  }
}
