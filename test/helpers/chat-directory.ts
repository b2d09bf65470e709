/**
 * The structures a chat engine works in, for its unit tests: one structure of fixed
 * nodes, node folders under a test's temp folder, and the workspace log kept in a list.
 */
import { join } from 'node:path';
import { notFound } from '../../src/core/errors.js';
import type { ChatDirectory } from '../../src/core/chat/ports.js';
import type { LogEntry, NodeRecord } from '../../src/core/structures/types.js';

/** A `ChatDirectory` of the structure `structureId` with `agents`, whose node folders are under `dir()` and whose log entries go to `logged()`. */
export function testDirectory(structureId: string, agents: readonly NodeRecord[], dir: () => string, logged: () => Omit<LogEntry, 'id' | 'created_at'>[]): ChatDirectory {
  return {
    node: (wanted, roleId) => {
      const found = agents.find((candidate) => candidate.role_id === roleId);
      if (wanted !== structureId || !found) throw notFound(`node ${roleId} not found`);
      return found;
    },
    structure: () => ({ id: structureId, name: 'Test', agents }),
    nodeDir: (wanted, nodeId) => join(dir(), 'structures', wanted, 'nodes', nodeId),
    appendLog: async (_structureId, entries) => {
      logged().push(...entries);
    },
  };
}
