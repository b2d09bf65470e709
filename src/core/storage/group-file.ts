/**
 * An append-only file kept open, with group commit: appends that arrive while a write is
 * in flight are written together in the next write, which is durable when it returns (the
 * file is opened with `O_DSYNC`: one system call per group instead of a write and an
 * `fdatasync`; where the flag does not exist, the write is followed by `fdatasync`). Each
 * append's promise settles once its bytes are on disk, in the order appends were made.
 * Appends given as bytes are never joined into a new Buffer: one group is written with
 * one vectored write (`writev`) of all its Buffers.
 * A record torn by a crash (a line, or an SSE frame with `records: 'frames'`) is cut
 * off when the file is opened, so readers always see whole records.
 */
import type { FileHandle } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname } from 'node:path';
import { syncDirectory } from './dir-sync.js';
import { mkdirSafe, openNoFollow } from './safe-fs.js';

/** What one append adds: text, bytes, or several Buffers to write in order. */
export type Appended = string | Buffer | readonly Buffer[];

interface Pending {
  text: Appended;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface GroupFileOptions {
  /** Also make the file's directory entry durable when the file is created (default true). */
  syncDirectory?: boolean;
  /** File mode of a new file (default 0o600). */
  mode?: number;
  /**
   * Close the file once no append has come for this many milliseconds instead of keeping
   * it open (default: kept open): for many files written now and then, so that open
   * files stay few while a busy one is not reopened for every write. 0 closes it after
   * each write.
   */
  closeWhenIdleMs?: number;
  /**
   * What a whole record ends with: a line break (`lines`, the default: JSON lines) or a
   * blank line (`frames`: SSE frames, whose lines end with line breaks of their own).
   */
  records?: 'lines' | 'frames';
}

/** Makes each write durable before it returns (data and the size that reaches it); 0 where the platform has no such flag. */
const DSYNC = constants.O_DSYNC ?? 0;

/** One append-only file with group-committed, durable appends. */
export class GroupFile {
  private handle: Promise<FileHandle> | undefined;
  private pending: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly path: string,
    private readonly options: GroupFileOptions = {},
  ) {}

  /** Appends `text` (whole lines, as text, bytes or several Buffers); resolves once it is durable. */
  append(text: Appended): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`file ${this.path} is closed`));
    clearTimeout(this.idleTimer);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ text, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      do {
        while (this.pending.length > 0) {
          const batch = this.pending;
          this.pending = [];
          try {
            const handle = await this.open();
            const data = joined(batch);
            if (typeof data === 'string') await handle.write(data);
            else await writeAll(handle, data);
            if (!DSYNC) await handle.datasync();
            for (const entry of batch) entry.resolve();
          } catch (error) {
            for (const entry of batch) entry.reject(error);
          }
        }
        if (this.options.closeWhenIdleMs === 0) await this.release();
        // Appends made while the file was being closed are written by this same flush.
      } while (this.pending.length > 0);
      const idleMs = this.options.closeWhenIdleMs;
      if (idleMs) {
        clearTimeout(this.idleTimer);
        this.idleTimer = setTimeout(() => {
          if (!this.flushing) void this.release().catch(() => undefined);
        }, idleMs);
        this.idleTimer.unref();
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private open(): Promise<FileHandle> {
    this.handle ??= (async () => {
      await mkdirSafe(dirname(this.path));
      // State files are never reached through a symbolic link (the file or a folder on the way).
      const handle = await openNoFollow(this.path, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | DSYNC, this.options.mode ?? 0o600);
      const { size } = await handle.stat();
      if (size === 0) {
        if (this.options.syncDirectory !== false) await syncDirectory(dirname(this.path));
      } else {
        await cutTornTail(handle, size, this.options.records === 'frames' ? FRAME_END : LINE_END);
      }
      return handle;
    })();
    this.handle.catch(() => {
      this.handle = undefined;
    });
    return this.handle;
  }

  /** Waits for pending appends, then closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    while (this.flushing) await this.flushing;
    await this.release();
  }

  private async release(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle.catch(() => undefined))?.close();
  }
}

/** The appends of one write: one string when all are text, else their Buffers in order (text encoded). */
function joined(batch: Pending[]): string | Buffer[] {
  if (batch.every((entry) => typeof entry.text === 'string')) return batch.length === 1 ? (batch[0]!.text as string) : batch.map((entry) => entry.text).join('');
  const buffers: Buffer[] = [];
  for (const { text } of batch) {
    if (typeof text === 'string') buffers.push(Buffer.from(text, 'utf8'));
    else if (Buffer.isBuffer(text)) buffers.push(text);
    else for (const buffer of text) buffers.push(buffer);
  }
  return buffers;
}

/**
 * Writes `buffers` in order with vectored writes, going on after a short write (the
 * system may take fewer bytes, or fewer buffers than given, per call).
 */
export async function writeAll(handle: FileHandle, buffers: readonly Buffer[]): Promise<void> {
  let rest: readonly Buffer[] = buffers.filter((buffer) => buffer.length > 0);
  while (rest.length > 0) {
    let { bytesWritten } = rest.length === 1 ? await handle.write(rest[0]!) : await handle.writev(rest as Buffer[]);
    let index = 0;
    while (index < rest.length && bytesWritten >= rest[index]!.length) bytesWritten -= rest[index++]!.length;
    const left = rest.slice(index);
    if (bytesWritten > 0) left[0] = left[0]!.subarray(bytesWritten);
    rest = left;
  }
}

const LINE_END = Buffer.from('\n');
const FRAME_END = Buffer.from('\n\n');

/** Truncates an unterminated last record (a write torn by a crash): everything after the last `end`. */
async function cutTornTail(handle: FileHandle, size: number, end: Buffer): Promise<void> {
  const last = Buffer.alloc(end.length);
  if (size >= end.length) {
    await handle.read(last, 0, end.length, size - end.length);
    if (last.equals(end)) return;
  }
  const content = await handle.readFile();
  const at = content.lastIndexOf(end);
  await handle.truncate(at < 0 ? 0 : at + end.length);
  await handle.datasync();
}
