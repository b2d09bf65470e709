import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { AuditEntry } from '../schemas/audit.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeAuditStore } from '../../../test/support/audit-store-contract.js';
import { createFsAuditStore } from './store.js';

describeAuditStore('filesystem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'org-audit-store-'));
  return { store: createFsAuditStore(dir), reopen: async () => createFsAuditStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

it('concurrent appends share writes but each lands once, as a whole line, in the order they were made', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'org-audit-group-'));
  try {
    const store = createFsAuditStore(dir);
    const entries = Array.from(
      { length: 50 },
      (_, i): AuditEntry => ({
        id: randomUUID(),
        at: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString(),
        action: 'node.add',
        actor: { kind: 'admin', id: 'admin', email: null },
        structure_id: null,
        target: { type: 'node', id: `team-n${i}` },
        status: 201,
        ip: '127.0.0.1',
        user_agent: null,
        request_id: `req-${i}`,
      }),
    );
    await Promise.all(entries.map((entry) => store.append(entry)));
    await store.close?.();
    const lines = (await readFile(join(dir, 'audit.jsonl'), 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line) as AuditEntry)).toEqual(entries);
    await expect(store.append(entries[0]!)).rejects.toThrow('closed');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
