import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeAuditStore } from '../../../test/support/audit-store-contract.js';
import { describeKeyStore, describeUserStore } from '../../../test/support/auth-store-contract.js';
import { describeChatStore } from '../../../test/support/chat-store-contract.js';
import { describeWebhookStore } from '../../../test/support/webhook-store-contract.js';
import { describeReplyJournal } from '../../../test/support/reply-journal-contract.js';
import { describeArtifactShelf } from '../../../test/support/shelf-contract.js';
import { describeInviteStore } from '../../../test/support/invite-store-contract.js';
import { describeStructureStore, describeWorkspaceLogStore } from '../../../test/support/structure-store-contract.js';
import { createPgStructureStore } from './structures.js';
import { createPgWorkspaceLogStore } from './workspace-log.js';
import { createPgAuditStore } from './audit.js';
import { usePostgres } from '../../../test/support/pg-fixture.js';
import { createPgChatStore } from './chat.js';
import { createPgShelves } from './artifacts.js';
import { createPgReplyJournal } from './replies.js';
import { createPgReplayGuard } from './inbound-ids.js';
import { createPgWebhookStore } from './webhooks.js';
import { createPgInviteStore } from './invites.js';
import { createPgKeyStore } from './keys.js';
import { createPgUserStore } from './users.js';

const pg = usePostgres();

describeUserStore('PostgreSQL', pg.fixture(createPgUserStore));
describeKeyStore('PostgreSQL', pg.fixture(createPgKeyStore));
describeInviteStore('PostgreSQL', pg.fixture(createPgInviteStore));

describeStructureStore('PostgreSQL', pg.fixture((db) => createPgStructureStore(db, { compactEvery: 8 })));
describeWorkspaceLogStore('PostgreSQL', pg.fixture(createPgWorkspaceLogStore));
describeAuditStore('PostgreSQL', pg.fixture(createPgAuditStore));

describeChatStore('PostgreSQL', async () => {
  const fixture = await pg.fixture((db) => createPgChatStore(db, { instanceId: randomUUID(), leaseMs: 15_000 }))();
  return { store: fixture.store, reopen: fixture.reopen, cleanup: fixture.cleanup };
});

describeReplyJournal('PostgreSQL', pg.fixture((db) => createPgReplyJournal(db, { instanceId: randomUUID(), leaseMs: 15_000 })));

// Each opening is a new instance (a restart): claims of the one before are free.
describeWebhookStore('PostgreSQL', pg.fixture((db) => createPgWebhookStore(db, { instanceId: randomUUID(), leaseMs: 15_000 })));

describeArtifactShelf('PostgreSQL', async (clock) => {
  const cacheDirs: string[] = [];
  const { store: open, reopen } = await pg.fixture(async (db) => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'org-pg-shelf-'));
    cacheDirs.push(cacheDir);
    return createPgShelves(db, { cacheDir, clock });
  })();
  return { open, reopen, cleanup: async () => void (await Promise.all(cacheDirs.map((dir) => rm(dir, { recursive: true, force: true })))) };
});

describe('the shared replay guard of inbound webhooks', () => {
  it('takes an id once across instances, and again only once it is out of the window', async () => {
    const { store: first, reopen, cleanup } = await pg.fixture((db) => createPgReplayGuard(db, () => undefined))();
    try {
      const second = await reopen();
      const now = Date.now();
      expect(await first.claim('msg_a', now)).toBe(true);
      expect(await second.claim('msg_a', now + 1000)).toBe(false);
      expect(await first.claim('msg_a', now + 2000)).toBe(false);
      expect(await second.claim('msg_a', now + 601_000)).toBe(true);
    } finally {
      await cleanup();
    }
  });
});
