import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWebhookStore } from '../../../test/support/webhook-store-contract.js';
import { createFsWebhookStore } from './store.js';

describeWebhookStore('filesystem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'org-webhook-store-'));
  return { store: await createFsWebhookStore(dir), reopen: () => createFsWebhookStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
});
