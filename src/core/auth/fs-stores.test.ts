import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeKeyStore, describeUserStore } from '../../../test/support/auth-store-contract.js';
import { createFsKeyStore } from './fs-key-store.js';
import { createFsUserStore } from './fs-user-store.js';

async function onDisk<S>(file: string, open: (path: string) => Promise<S>) {
  const dir = await mkdtemp(join(tmpdir(), 'org-auth-store-'));
  return {
    store: await open(join(dir, file)),
    reopen: () => open(join(dir, file)),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

describeUserStore('filesystem', () => onDisk('users.json', createFsUserStore));
describeKeyStore('filesystem', () => onDisk('keys.json', createFsKeyStore));
