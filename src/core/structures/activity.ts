/** Which nodes are running a turn right now (node `state` = `working`). In memory only. */
export class NodeActivity {
  private readonly working = new Map<string, number>();
  /** Changes counted per structure, so that a turn elsewhere leaves a structure's cached views valid. */
  private readonly changes = new Map<string, number>();

  /**
   * Grows whenever a node of the structure goes from idle to working or back (a cache key
   * for the live states of that structure's nodes).
   */
  revisionOf(structureId: string): number {
    return this.changes.get(structureId) ?? 0;
  }

  /** Marks a node of a structure as working (nested marks are counted). */
  begin(nodeId: string, structureId: string): void {
    const count = this.working.get(nodeId) ?? 0;
    if (count === 0) this.bump(structureId);
    this.working.set(nodeId, count + 1);
  }

  /** Ends one working mark of a node of a structure. */
  end(nodeId: string, structureId: string): void {
    const count = (this.working.get(nodeId) ?? 0) - 1;
    if (count > 0) this.working.set(nodeId, count);
    else if (this.working.delete(nodeId)) this.bump(structureId);
  }

  /** `working` while a turn of the node runs, else `idle`. */
  stateOf(nodeId: string): 'idle' | 'working' {
    return this.working.has(nodeId) ? 'working' : 'idle';
  }

  private bump(structureId: string): void {
    this.changes.set(structureId, (this.changes.get(structureId) ?? 0) + 1);
  }
}
