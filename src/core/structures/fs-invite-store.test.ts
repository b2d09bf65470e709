import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeInviteStore } from '../../../test/support/invite-store-contract.js';
import { createFsInviteStore } from './fs-invite-store.js';

describeInviteStore('filesystem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'org-invite-store-'));
  const file = join(dir, 'invites.json');
  return { store: await createFsInviteStore(file), reopen: () => createFsInviteStore(file), cleanup: () => rm(dir, { recursive: true, force: true }) };
});
