/**
 * A JSON state file held in memory and written through atomically. Updates are
 * serialized, so concurrent read-modify-write cycles never lose each other's changes,
 * and a change is visible to readers only once it is on disk.
 */
import { readJson, removeStaleTemps, writeJsonAtomic } from './atomic.js';
import { KeyedMutex } from './mutex.js';

const mutex = new KeyedMutex();

/** A typed JSON document on disk with serialized, atomic updates. */
export class JsonFile<T> {
  private value: T | undefined;

  /**
   * @param file absolute path of the document
   * @param initial the value used when the file does not exist yet
   * @param mode file mode for new files (0o600 for anything holding hashes)
   */
  constructor(
    readonly file: string,
    private readonly initial: () => T,
    private readonly mode = 0o600,
  ) {}

  /** Loads the document from disk (the initial value when absent). */
  async load(): Promise<T> {
    await mutex.run(this.file, () => removeStaleTemps(this.file));
    // `initial` runs only when the file is absent (it may throw, e.g. "not found").
    const stored = await readJson<T | undefined>(this.file, undefined);
    this.value = stored === undefined ? this.initial() : stored;
    return this.value;
  }

  /** The current value; `load()` must have run. */
  get current(): T {
    if (this.value === undefined) throw new Error(`state file not loaded: ${this.file}`);
    return this.value;
  }

  /**
   * Applies `change` to a copy of the document, writes it atomically and only then
   * makes it current. A throwing `change` writes nothing.
   */
  update<R>(change: (draft: T) => R): Promise<R> {
    return mutex.run(this.file, async () => {
      const draft = structuredClone(this.current);
      const result = change(draft);
      await writeJsonAtomic(this.file, draft, this.mode);
      this.value = draft;
      return result;
    });
  }

  /** Writes the current value again (used to flush in-memory counters such as last use). */
  flush(): Promise<void> {
    return mutex.run(this.file, () => writeJsonAtomic(this.file, this.current, this.mode));
  }
}

/** Waits for every queued state-file write of the process. */
export function pendingWrites(): Promise<void> {
  return mutex.idle();
}
