/** Which nodes are running a turn right now (node `state` = `working`). In memory only. */
export class NodeActivity {
  private readonly working = new Map<string, number>();
  private changes = 0;

  /** Grows whenever some node goes from idle to working or back (a cache key for live states). */
  get revision(): number {
    return this.changes;
  }

  /** Marks a node as working (nested marks are counted). */
  begin(nodeId: string): void {
    const count = this.working.get(nodeId) ?? 0;
    if (count === 0) this.changes++;
    this.working.set(nodeId, count + 1);
  }

  /** Ends one working mark of a node. */
  end(nodeId: string): void {
    const count = (this.working.get(nodeId) ?? 0) - 1;
    if (count > 0) this.working.set(nodeId, count);
    else if (this.working.delete(nodeId)) this.changes++;
  }

  /** `working` while a turn of the node runs, else `idle`. */
  stateOf(nodeId: string): 'idle' | 'working' {
    return this.working.has(nodeId) ? 'working' : 'idle';
  }
}
