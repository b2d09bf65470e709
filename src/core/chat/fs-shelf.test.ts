import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeArtifactShelf } from '../../../test/support/shelf-contract.js';
import { FsArtifactShelf } from './artifacts.js';

describeArtifactShelf('filesystem', async (clock) => {
  const root = await mkdtemp(join(tmpdir(), 'org-shelf-'));
  const open = (structureId: string, nodeId: string) => new FsArtifactShelf(join(root, structureId, 'nodes', nodeId), clock);
  return { open, reopen: async () => open, cleanup: () => rm(root, { recursive: true, force: true }) };
});
