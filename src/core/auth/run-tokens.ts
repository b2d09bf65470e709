/**
 * Run-scoped bearers (API.md §10 "Delegation"): `org_run_` + 40 random base62
 * characters, handed to a container agent with its turn so that it may delegate over
 * HTTP on behalf of its run. Only the SHA-256 hash is kept; a token authenticates while
 * its run is open and before its `expires_at`, whichever ends first. What it may do is
 * decided by the access layer (the principal kind `run`).
 */
import { isoNow, systemClock, type Clock } from '../util/index.js';
import { hashToken, mintToken } from './tokens.js';

/** How long a run token lasts at most when its run does not end first (one hour). */
export const RUN_TOKEN_TTL_MS = 60 * 60 * 1000;

/** The run a token speaks for. */
export interface RunTokenRecord {
  runId: string;
  structureId: string;
  nodeId: string;
  roleId: string;
  /** ISO 8601: the token stops working then, if its run has not ended before. */
  expiresAt: string;
}

/** Where token hashes are kept beside the service's memory (a store shared by instances). */
export interface RunTokenStore {
  /** Keeps a token's hash for its run. */
  put(hash: string, record: RunTokenRecord): Promise<void>;
  /** The record of a token whose run is still open (expiry is checked by the caller). */
  get(hash: string): Promise<RunTokenRecord | undefined>;
}

/** Options of {@link RunTokens}. */
export interface RunTokensOptions {
  /** Present when instances share a store: a token issued by one authenticates on all. */
  store?: RunTokenStore;
  clock?: Clock;
  /** Lifetime of a token in ms (default {@link RUN_TOKEN_TTL_MS}). */
  ttlMs?: number;
}

/** Issues, resolves and ends run tokens. */
export class RunTokens {
  private readonly byHash = new Map<string, RunTokenRecord>();
  private readonly byRun = new Map<string, Set<string>>();
  private readonly clock: Clock;
  private readonly ttlMs: number;

  constructor(private readonly options: RunTokensOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.ttlMs = options.ttlMs ?? RUN_TOKEN_TTL_MS;
  }

  /** Issues a token for a running turn; returns it (shown once, to the runtime) and when it expires. */
  async issue(where: Omit<RunTokenRecord, 'expiresAt'>): Promise<{ token: string; expiresAt: string }> {
    const token = mintToken('run');
    const hash = hashToken(token);
    const expiresAt = new Date(this.clock.now().getTime() + this.ttlMs).toISOString();
    const record: RunTokenRecord = { ...where, expiresAt };
    await this.options.store?.put(hash, record);
    this.byHash.set(hash, record);
    const hashes = this.byRun.get(where.runId);
    if (hashes) hashes.add(hash);
    else this.byRun.set(where.runId, new Set([hash]));
    return { token, expiresAt };
  }

  /** The run of a token issued by this instance, if still valid, without waiting (undefined: ask `authenticate`). */
  known(hash: string): RunTokenRecord | undefined {
    const record = this.byHash.get(hash);
    return record && this.valid(record) ? record : undefined;
  }

  /** The run of a valid token (issued here or, with a shared store, by another instance). */
  async authenticate(hash: string): Promise<RunTokenRecord | undefined> {
    const known = this.byHash.get(hash);
    if (known) return this.valid(known) ? known : undefined;
    const stored = await this.options.store?.get(hash);
    return stored && this.valid(stored) ? stored : undefined;
  }

  /** Ends the tokens of a run (its end); a shared store drops them with the run's end. */
  end(runId: string): void {
    for (const hash of this.byRun.get(runId) ?? []) this.byHash.delete(hash);
    this.byRun.delete(runId);
  }

  private valid(record: RunTokenRecord): boolean {
    return record.expiresAt > isoNow(this.clock);
  }
}
