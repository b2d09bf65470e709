/**
 * The copy between backends through their stores: a filesystem home's workspace log (which
 * the end-to-end test of `org migrate` leaves empty, since only agents write it) reaches
 * PostgreSQL in order with its ids, and a second copy adds nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { usePostgres } from '../../../test/support/pg-fixture.js';
import type { LogEntry, StructureRecord } from '../../core/structures/types.js';
import { copyState } from './copy.js';
import { openFsState, openPgState } from './state.js';

const pg = usePostgres();
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('copyState', () => {
  it('copies workspace logs in order with their ids, once', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-copy-'));
    dirs.push(home);
    const record: StructureRecord = { version: 1, id: randomUUID(), name: 'S', template: 'blank', created_at: '2030-01-01T00:00:00.000Z', members: [], agents: [], archive: [] };
    const entries: LogEntry[] = ['first', 'second', 'third'].map((title, i) => ({
      id: randomUUID(),
      type: 'decision',
      title,
      role_id: 'team-lead',
      node_id: randomUUID(),
      run_id: null,
      created_at: `2030-01-01T00:00:0${i}.000Z`,
    }));
    const fs = await openFsState(home);
    await fs.structures.create(record);
    await fs.log.append(record.id, entries);

    const db = await openPgState(pg.url(), 'the test database');
    try {
      const first = await copyState(fs, db);
      expect(first['log entries']).toEqual({ copied: 3, kept: 0 });
      expect(first.structures).toEqual({ copied: 1, kept: 0 });
      expect(await db.log.read(record.id, 10)).toEqual([...entries].reverse());
      const second = await copyState(fs, db);
      expect(second['log entries']).toEqual({ copied: 0, kept: 3 });
      expect(second.structures).toEqual({ copied: 0, kept: 1 });
      expect(await db.log.read(record.id, 10)).toHaveLength(3);
    } finally {
      await db.close();
      await fs.close();
    }
  });
});
