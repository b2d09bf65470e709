import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeReplyJournal } from '../../../test/support/reply-journal-contract.js';
import { createFsReplyJournal } from './reply-journal.js';

describeReplyJournal('filesystem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'org-replies-'));
  const file = join(dir, 'inbound-replies.jsonl');
  return { store: createFsReplyJournal(file), reopen: async () => createFsReplyJournal(file), cleanup: () => rm(dir, { recursive: true, force: true }) };
});
