/**
 * Instances sharing a database and their leases: each `org serve` registers itself in
 * `org_instances` and renews its heartbeat; one whose heartbeat is older than the lease
 * is dead, and what it owned (open runs, owed replies) is taken over by another.
 */
import type { Db } from './db.js';

/** SQL condition: the instance named by the column `owner` is alive (parameter `$lease` in ms). */
export function aliveSql(ownerColumn: string, leaseParam: string): string {
  return `EXISTS (SELECT 1 FROM org_instances i WHERE i.id = ${ownerColumn} AND i.heartbeat_at > now() - make_interval(secs => ${leaseParam}::double precision / 1000))`;
}

/** The registration of this instance. */
export interface InstanceLease {
  readonly id: string;
  /** Renews the heartbeat now (also done every `leaseMs / 3`). */
  beat(): Promise<void>;
  /** Marks this instance draining (it takes no new work). */
  drain(): Promise<void>;
  /** Stops the heartbeat and removes the registration: what is left open is taken over at once. */
  close(): Promise<void>;
}

/** Options of {@link registerInstance}. */
export interface InstanceOptions {
  id: string;
  leaseMs: number;
  info?: Record<string, unknown>;
  /** Called after each heartbeat (the place for periodic checks that follow it). */
  onBeat?: () => void;
  onError?: (error: unknown) => void;
}

/** Registers this instance and starts its heartbeat. */
export async function registerInstance(db: Db, options: InstanceOptions): Promise<InstanceLease> {
  await db.query('INSERT INTO org_instances (id, info) VALUES ($1, $2)', [options.id, JSON.stringify(options.info ?? {})]);
  const beat = async () => {
    await db.query('UPDATE org_instances SET heartbeat_at = now() WHERE id = $1', [options.id]);
  };
  const timer = setInterval(
    () =>
      void beat().then(
        () => options.onBeat?.(),
        (error: unknown) => options.onError?.(error),
      ),
    Math.max(50, Math.floor(options.leaseMs / 3)),
  );
  timer.unref();
  return {
    id: options.id,
    beat,
    async drain() {
      await db.query('UPDATE org_instances SET draining = true WHERE id = $1', [options.id]);
    },
    async close() {
      clearInterval(timer);
      await db.query('DELETE FROM org_instances WHERE id = $1', [options.id]);
    },
  };
}
