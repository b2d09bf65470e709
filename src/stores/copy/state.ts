/**
 * All the service state of an organisation, opened through the storage interfaces of one
 * backend: a filesystem home (`<home>/.org`) or a PostgreSQL database. `org migrate`
 * copies one into the other through these interfaces only, so neither side's layout is
 * known twice.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createFsAuditStore, type AuditStore } from '../../core/audit/index.js';
import { createFsKeyStore, createFsUserStore, type KeyStore, type UserStore } from '../../core/auth/index.js';
import { FsArtifactShelf, createFsChatStore, type ArtifactShelf, type ChatStore } from '../../core/chat/index.js';
import { homePaths } from '../../core/config.js';
import { createFsReplyJournal, type ReplyJournal } from '../../core/inbound/index.js';
import { OrgError, isOrgError } from '../../core/errors.js';
import { acquireHomeLock } from '../../core/storage/index.js';
import type { Clock } from '../../core/util/index.js';
import { createFsStructureStore, createFsWorkspaceLogStore, type StructureStore, type WorkspaceLogStore } from '../../core/structures/index.js';
import { createFsInviteStore } from '../../core/structures/fs-invite-store.js';
import type { InviteStore } from '../../core/structures/invite-store.js';
import { createFsWebhookStore, type WebhookStore } from '../../core/webhooks/store.js';
import { createPgShelves } from '../postgres/artifacts.js';
import { createPgAuditStore } from '../postgres/audit.js';
import { createPgChatStore } from '../postgres/chat.js';
import { openDb } from '../postgres/db.js';
import { createPgInviteStore } from '../postgres/invites.js';
import { createPgKeyStore } from '../postgres/keys.js';
import { migrate } from '../postgres/migrate.js';
import { createPgReplyJournal } from '../postgres/replies.js';
import { createPgStructureStore } from '../postgres/structures.js';
import { createPgUserStore } from '../postgres/users.js';
import { createPgWorkspaceLogStore } from '../postgres/workspace-log.js';
import { createPgWebhookStore } from '../postgres/webhooks.js';

/** The stores of one backend. */
export interface OrgState {
  /** What the state is, for messages (`the home /srv/org`, `the database …`). */
  readonly label: string;
  users: UserStore;
  keys: KeyStore;
  invites: InviteStore;
  structures: StructureStore;
  log: WorkspaceLogStore;
  chat: ChatStore;
  audit: AuditStore;
  /** The replies owed to inbound e-mails whose turn ended before the reply was sent. */
  replies: ReplyJournal;
  /** Webhooks with their secrets, and their deliveries (pending ones included). */
  webhooks: WebhookStore;
  /** A node's artifact shelf; `clock` dates what is written (a copy keeps the original dates). */
  shelf(structureId: string, nodeId: string, clock: Clock): ArtifactShelf;
  /** Flushes and releases everything (the home's lock, the connections). */
  close(): Promise<void>;
}

/**
 * Opens the state of a filesystem home. The home's lock is taken, as `org serve` takes it,
 * so a server running on the home (which could change it meanwhile) makes this fail.
 */
export async function openFsState(home: string): Promise<OrgState> {
  const paths = homePaths(home);
  await mkdir(paths.structures, { recursive: true });
  let lock;
  try {
    lock = await acquireHomeLock(paths.state, home);
  } catch (error) {
    throw new OrgError('conflict', `${error instanceof Error ? error.message : String(error)}; stop that server first`);
  }
  try {
    const nodeDir = (structureId: string, nodeId: string) => join(paths.structures, structureId, 'nodes', nodeId);
    const [users, keys, invites] = await Promise.all([createFsUserStore(paths.users), createFsKeyStore(paths.keys), createFsInviteStore(paths.invites)]);
    const structures = createFsStructureStore({ dir: paths.structures });
    const chat = createFsChatStore({ stateDir: paths.state, nodeDir });
    const webhooks = await createFsWebhookStore(paths.state);
    const audit = createFsAuditStore(paths.state);
    // The chat store's start-up step (its open-runs journal made ready for appends).
    await chat.openRuns();
    const held = lock;
    return {
      label: `the home ${home}`,
      users,
      keys,
      invites,
      structures,
      log: createFsWorkspaceLogStore(paths.structures),
      chat,
      audit,
      replies: createFsReplyJournal(join(paths.state, 'inbound-replies.jsonl')),
      webhooks,
      shelf: (structureId, nodeId, clock) => new FsArtifactShelf(nodeDir(structureId, nodeId), clock),
      async close() {
        await chat.close();
        await structures.close();
        await audit.close?.();
        await held.release();
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Opens the state kept in a PostgreSQL database, bringing its schema up to date first. */
export async function openPgState(url: string, label: string): Promise<OrgState> {
  const db = openDb({ url, max: 4, applicationName: 'org migrate' });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    if (isOrgError(error)) throw error;
    throw new OrgError('unavailable', `${label} cannot be used: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Shelves keep local copies of what they write (for runtimes); here they are thrown away.
  const cacheDir = await mkdtemp(join(tmpdir(), 'org-migrate-'));
  const structures = createPgStructureStore(db);
  // Runs copied while still open stay owned by no live instance: the first instance to
  // start closes them as interrupted, as a restarted home would.
  // Owed replies copied in are likewise held by no live instance: the first one to start sends them.
  const owner = { instanceId: randomUUID(), leaseMs: 15_000 };
  const chat = createPgChatStore(db, owner);
  // Deliveries copied pending are claimed by no one: the first instance to start sends them.
  const webhooks = createPgWebhookStore(db, owner);
  return {
    label,
    users: createPgUserStore(db),
    keys: createPgKeyStore(db),
    invites: createPgInviteStore(db),
    structures,
    log: createPgWorkspaceLogStore(db),
    chat,
    audit: createPgAuditStore(db),
    replies: createPgReplyJournal(db, owner),
    webhooks,
    shelf: (structureId, nodeId, clock) => createPgShelves(db, { cacheDir, clock })(structureId, nodeId),
    async close() {
      await chat.close();
      await structures.close();
      await db.close();
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}
