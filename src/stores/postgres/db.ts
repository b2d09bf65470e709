/**
 * The connection pool of a PostgreSQL backend and the one transaction helper. Queries
 * are plain SQL with parameters; a transaction is `tx(async (client) => …)`, committed
 * when the callback resolves and rolled back when it throws.
 */
import pg from 'pg';

/** A client inside a transaction (or a pool for single statements). */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** The database of one instance. */
export interface Db {
  readonly pool: pg.Pool;
  /** Runs one statement. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Runs `work` in a transaction. */
  tx<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Options of {@link openDb}. */
export interface DbOptions {
  /** `postgres://user:pass@host:port/db` */
  url: string;
  /** Most connections this instance opens (default 10). */
  max?: number;
  /** Name shown in pg_stat_activity. */
  applicationName?: string;
}

/** Opens a pool (no connection is made until the first query). */
export function openDb(options: DbOptions): Db {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'org',
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its connection emits here; the pool replaces it on next use.
  pool.on('error', () => undefined);
  return {
    pool,
    query: (text, values) => pool.query(text, values),
    async tx(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** True for a unique-constraint violation (SQLSTATE 23505), optionally of one constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError?.code === '23505' && (constraint === undefined || pgError.constraint === constraint);
}
