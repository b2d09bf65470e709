import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStructureStore, describeWorkspaceLogStore } from '../../../test/support/structure-store-contract.js';
import { createFsStructureStore } from './fs-structure-store.js';
import { createFsWorkspaceLogStore } from './log.js';

describeStructureStore('filesystem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'org-structure-store-'));
  const open = () => createFsStructureStore({ dir, compactBytes: 1024 });
  const store = open();
  await store.loadAll();
  return {
    store,
    reopen: async () => {
      const again = open();
      await again.loadAll();
      return again;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describeWorkspaceLogStore('filesystem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'org-log-store-'));
  return { store: createFsWorkspaceLogStore(dir), reopen: async () => createFsWorkspaceLogStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
});
