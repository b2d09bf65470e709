/**
 * The audit log of an instance: who did what to which structure, node, skill, member,
 * key or webhook, when, from where and under which request. Entries are appended
 * durably before the action's answer leaves the server, and never edited; owners read
 * their structure's entries, the administrator every entry.
 *
 * It also notices a token used by a client it has not been used from before (a new
 * address and user agent pair): that first use is an entry of its own.
 */
import { invalid } from '../errors.js';
import { AUDIT_ACTIONS, type AuditAction, type AuditActor, type AuditEntry, type AuditTarget } from '../schemas/audit.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import type { AuditFilter, AuditStore } from './store.js';

/** Where an action came from. */
export interface AuditOrigin {
  ip: string;
  userAgent: string | null;
  requestId: string;
}

/** What the caller says about an action; the log adds its id and time. */
export interface AuditRecord extends AuditOrigin {
  action: AuditAction;
  actor: AuditActor;
  structureId: string | null;
  target: AuditTarget | null;
  status: number;
}

/** A read of the log: filters as the API takes them, and a page size. */
export interface AuditReadQuery {
  structureId?: string;
  /** Comma list of actions or prefixes ending in "." (`skill.`). */
  action?: string;
  actor?: string;
  since?: string;
  until?: string;
  before?: string;
  limit: number;
}

/** Options of {@link AuditLog}. */
export interface AuditLogOptions {
  store: AuditStore;
  clock?: Clock;
  ids?: IdGenerator;
}

/** The audit log over a store. */
export class AuditLog {
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  /** Clients (actor, address, user agent) each token is known to have been used from; loaded on first need. */
  private clients: Promise<Set<string>> | undefined;
  /** The same set once loaded, for answers that need no waiting. */
  private loadedClients: Set<string> | undefined;

  constructor(private readonly options: AuditLogOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  /** Appends one entry durably and returns it. */
  async record(record: AuditRecord): Promise<AuditEntry> {
    const entry: AuditEntry = {
      id: this.ids(),
      at: isoNow(this.clock),
      action: record.action,
      actor: record.actor,
      structure_id: record.structureId,
      target: record.target,
      status: record.status,
      ip: record.ip,
      user_agent: record.userAgent,
      request_id: record.requestId,
    };
    await this.options.store.append(entry);
    return entry;
  }

  /**
   * Records `token.new_client` the first time `actor`'s token is used from this address
   * and user agent; later uses from the same client add nothing. `structureId` is the
   * structure a node key belongs to (its owners see the entry); null for a person's token.
   * Returns the entry when one was written.
   */
  async noteClient(actor: AuditActor, origin: AuditOrigin, structureId: string | null = null): Promise<AuditEntry | undefined> {
    const key = clientKey(actor, origin.ip, origin.userAgent);
    const clients = this.loadedClients ?? (await this.knownClients());
    if (clients.has(key)) return undefined;
    clients.add(key);
    try {
      return await this.record({ ...origin, action: 'token.new_client', actor, structureId, target: { type: 'token', id: actor.id }, status: 200 });
    } catch (error) {
      clients.delete(key); // noticed again next time rather than never
      throw error;
    }
  }

  /** One page of entries, newest first, and the id to page on from (null on the last page). */
  async read(query: AuditReadQuery): Promise<{ entries: AuditEntry[]; next_before: string | null }> {
    const filter: AuditFilter = { limit: query.limit + 1 };
    if (query.structureId !== undefined) filter.structureId = query.structureId;
    if (query.action !== undefined) filter.actions = expandActions(query.action);
    if (query.actor !== undefined) filter.actor = query.actor;
    if (query.since !== undefined) filter.since = new Date(query.since).toISOString();
    if (query.until !== undefined) filter.until = new Date(query.until).toISOString();
    if (query.before !== undefined) filter.before = query.before;
    const found = await this.options.store.read(filter);
    const entries = found.slice(0, query.limit);
    return { entries, next_before: found.length > query.limit ? entries.at(-1)!.id : null };
  }

  /** Waits for entries being written and releases the store's open file, if it keeps one. */
  async close(): Promise<void> {
    await this.options.store.close?.();
  }

  /**
   * True when `actor`'s token is known to have been used from this client already, decided
   * without waiting (once the known clients are loaded): the case of nearly every request,
   * which then needs no call to `noteClient`. False means "ask `noteClient`".
   */
  isKnownClient(actor: AuditActor, ip: string, userAgent: string | null): boolean {
    return this.loadedClients?.has(clientKey(actor, ip, userAgent)) ?? false;
  }

  private knownClients(): Promise<Set<string>> {
    this.clients ??= this.options.store
      .read({ actions: ['token.new_client'], limit: Number.MAX_SAFE_INTEGER })
      .then((entries) => (this.loadedClients = new Set(entries.map((entry) => clientKey(entry.actor, entry.ip, entry.user_agent)))))
      .catch((error: unknown) => {
        this.clients = undefined;
        throw error;
      });
    return this.clients;
  }
}

function clientKey(actor: AuditActor, ip: string, userAgent: string | null): string {
  return JSON.stringify([actor.kind, actor.id, ip, userAgent]);
}

/**
 * The actions a filter names: each comma-separated item is an action or a prefix ending
 * in "." (`skill.` = every skill action). An item naming nothing is a 400.
 */
export function expandActions(value: string): AuditAction[] {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const wanted = new Set<AuditAction>();
  const unknown: string[] = [];
  for (const item of items) {
    const matched = AUDIT_ACTIONS.filter((action) => (item.endsWith('.') ? action.startsWith(item) : action === item));
    if (matched.length === 0) unknown.push(item);
    for (const action of matched) wanted.add(action);
  }
  if (unknown.length > 0 || items.length === 0) {
    const message = `must be a comma list of actions (${AUDIT_ACTIONS.join(', ')}) or prefixes such as "skill."`;
    throw invalid(`unknown audit action ${unknown.map((item) => `"${item}"`).join(', ') || '(none given)'}`, [{ path: 'action', message }]);
  }
  return [...wanted];
}
