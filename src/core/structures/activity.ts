/**
 * Which nodes are running a turn right now (node `state` = `working`), and for whom when
 * the turn was delegated by another node (`working_for`). In memory only.
 */
export class NodeActivity {
  private readonly working = new Map<string, number>();
  /** The role id of the node that delegated the turn a node is running. */
  private readonly delegators = new Map<string, string>();
  /** Changes counted per structure, so that a turn elsewhere leaves a structure's cached views valid. */
  private readonly changes = new Map<string, number>();

  /**
   * Grows whenever a node of the structure goes from idle to working or back (a cache key
   * for the live states of that structure's nodes).
   */
  revisionOf(structureId: string): number {
    return this.changes.get(structureId) ?? 0;
  }

  /**
   * Marks a node of a structure as working (nested marks are counted), on a task that the
   * node with role id `workingFor` delegated when given.
   */
  begin(nodeId: string, structureId: string, workingFor?: string): void {
    const count = this.working.get(nodeId) ?? 0;
    const changed = count === 0 || this.delegators.get(nodeId) !== workingFor;
    if (workingFor === undefined) this.delegators.delete(nodeId);
    else this.delegators.set(nodeId, workingFor);
    if (changed) this.bump(structureId);
    this.working.set(nodeId, count + 1);
  }

  /** Ends one working mark of a node of a structure. */
  end(nodeId: string, structureId: string): void {
    const count = (this.working.get(nodeId) ?? 0) - 1;
    if (count > 0) this.working.set(nodeId, count);
    else if (this.working.delete(nodeId)) {
      this.delegators.delete(nodeId);
      this.bump(structureId);
    }
  }

  /** The role id of the node whose delegated task the node is working on (undefined: none, or idle). */
  workingFor(nodeId: string): string | undefined {
    return this.delegators.get(nodeId);
  }

  /** `working` while a turn of the node runs, else `idle`. */
  stateOf(nodeId: string): 'idle' | 'working' {
    return this.working.has(nodeId) ? 'working' : 'idle';
  }

  private bump(structureId: string): void {
    this.changes.set(structureId, (this.changes.get(structureId) ?? 0) + 1);
  }
}
