/**
 * Change notifications of the skill store, so callers (the server's caches, the chat's
 * skill lookup, a UI) can react to edits whatever their source.
 */

/** Where a change came from: a store method, the file watcher, or loading at start. */
export type SkillChangeSource = 'api' | 'watcher';

/**
 * One change to the catalog: a skill is named by its slug and, for a structure's own
 * skill, its `structure_id`; a problem by its file relative to the skills folder.
 */
export type SkillChangeEvent =
  | { type: 'upsert'; slug: string; structure_id?: string; created: boolean; source: SkillChangeSource }
  | { type: 'remove'; slug: string; structure_id?: string; source: SkillChangeSource }
  | { type: 'restore'; slug: string; structure_id?: string; source: 'api' }
  | { type: 'problem'; file: string; message: string; source: SkillChangeSource };

/** A change listener; exceptions it throws are logged and otherwise ignored. */
export type SkillChangeListener = (event: SkillChangeEvent) => void;

/** A tiny synchronous event hub. */
export class SkillEvents {
  private readonly listeners = new Set<SkillChangeListener>();

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: SkillChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls every listener; a throwing listener is reported through `onError`. */
  emit(event: SkillChangeEvent, onError: (error: unknown) => void): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        onError(error);
      }
    }
  }
}
