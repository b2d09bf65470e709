import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeAuditStore } from '../../../test/support/audit-store-contract.js';
import { createFsAuditStore } from './store.js';

describeAuditStore('filesystem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'org-audit-store-'));
  return { store: createFsAuditStore(dir), reopen: async () => createFsAuditStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
});
