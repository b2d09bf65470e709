/**
 * Everything one `org serve` instance keeps in PostgreSQL, opened together: the pool,
 * the schema brought up to date (safe when several instances start at once), this
 * instance's registration and lease, its LISTEN connection, and one store per kind of
 * state. The composition root hands the stores to the services, which never know the
 * backend.
 */
import { randomUUID } from 'node:crypto';
import type { KeyStore, RateCounter, RunTokenStore, UserStore } from '../../core/auth/index.js';
import type { ArtifactShelf, ChatStore } from '../../core/chat/index.js';
import type { ReplyJournal } from '../../core/inbound/index.js';
import type { Clock } from '../../core/util/index.js';
import type { AuditStore } from '../../core/audit/index.js';
import type { WebhookStore } from '../../core/webhooks/store.js';
import type { StructureStore, WorkspaceLogStore } from '../../core/structures/index.js';
import type { InviteStore } from '../../core/structures/invite-store.js';
import { createPgShelves } from './artifacts.js';
import { createPgChatStore } from './chat.js';
import { openDb, type Db } from './db.js';
import { registerInstance, type InstanceLease } from './instances.js';
import { createPgInviteStore } from './invites.js';
import { createPgKeyStore } from './keys.js';
import { migrate } from './migrate.js';
import { listen, type Listener } from './notify.js';
import { createPgRateCounter } from './rate-counts.js';
import { createPgReplyJournal } from './replies.js';
import { createPgReplayGuard } from './inbound-ids.js';
import type { ReplayGuard } from '../../core/inbound/replay-guard.js';
import { createPgRunTokenStore } from './run-tokens.js';
import { createPgStructureStore } from './structures.js';
import { createPgUserStore } from './users.js';
import { createPgWorkspaceLogStore } from './workspace-log.js';
import { createPgAuditStore } from './audit.js';
import { createPgWebhookStore } from './webhooks.js';

/** Options of {@link openPgBackend}. */
export interface PgBackendOptions {
  /** `postgres://user:pass@host:port/db` */
  url: string;
  /** An instance whose heartbeat is older than this is dead and its runs are taken over (ms). */
  leaseMs: number;
  /** This instance's folder for local copies of artifacts (runtimes read files). */
  cacheDir: string;
  clock?: Clock;
  /** Shown in `org_instances.info` (the listening address, the version). */
  info?: Record<string, unknown>;
  /** Called after each heartbeat: the place to take over what dead instances left. */
  onBeat?: () => void;
  /** Reports connection and heartbeat failures (the backend keeps retrying). */
  onError?: (error: unknown) => void;
}

/** The opened backend of one instance. */
export interface PgBackend {
  readonly instanceId: string;
  readonly db: Db;
  readonly listener: Listener;
  readonly lease: InstanceLease;
  users: UserStore;
  keys: KeyStore;
  invites: InviteStore;
  structures: StructureStore;
  workspaceLog: WorkspaceLogStore;
  audit: AuditStore;
  chat: ChatStore;
  shelves: (structureId: string, nodeId: string) => ArtifactShelf;
  replies: ReplyJournal;
  /** The ids of inbound webhook messages already accepted, by any instance. */
  inboundIds: ReplayGuard;
  /** Webhooks and their outbox, shared: each delivery is attempted by one instance. */
  webhooks: WebhookStore;
  /** Requests counted across instances, for the rate limit. */
  rateCounter: RateCounter;
  /** Run tokens of container turns, valid on every instance while their run is open. */
  runTokens: RunTokenStore;
  /** Ends the registration (what is left open is taken over at once) and closes every connection. */
  close(): Promise<void>;
}

/** Opens the backend: migrates, registers the instance, starts listening. */
export async function openPgBackend(options: PgBackendOptions): Promise<PgBackend> {
  const instanceId = randomUUID();
  const db = openDb({ url: options.url, max: 20, applicationName: `org ${instanceId.slice(0, 8)}` });
  let listener: Listener | undefined;
  try {
    await migrate(db);
    listener = listen({ url: options.url, ...(options.onError ? { onError: options.onError } : {}) });
    await listener.ready;
    const lease = await registerInstance(db, {
      id: instanceId,
      leaseMs: options.leaseMs,
      ...(options.info ? { info: options.info } : {}),
      ...(options.onBeat ? { onBeat: options.onBeat } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
    const owned = { instanceId, leaseMs: options.leaseMs };
    const openListener = listener;
    return {
      instanceId,
      db,
      listener: openListener,
      lease,
      users: createPgUserStore(db),
      keys: createPgKeyStore(db),
      invites: createPgInviteStore(db),
      structures: createPgStructureStore(db),
      workspaceLog: createPgWorkspaceLogStore(db),
      audit: createPgAuditStore(db),
      chat: createPgChatStore(db, { ...owned, listener: openListener }),
      shelves: createPgShelves(db, { cacheDir: options.cacheDir, ...(options.clock ? { clock: options.clock } : {}) }),
      replies: createPgReplyJournal(db, owned),
      inboundIds: createPgReplayGuard(db, (error) => options.onError?.(error)),
      webhooks: createPgWebhookStore(db, owned),
      rateCounter: createPgRateCounter(db, options.onError ? { onError: options.onError } : {}),
      runTokens: createPgRunTokenStore(db),
      async close() {
        await lease.close().catch(options.onError ?? (() => undefined));
        await openListener.close();
        await db.close();
      },
    };
  } catch (error) {
    await listener?.close();
    await db.close();
    throw error;
  }
}
