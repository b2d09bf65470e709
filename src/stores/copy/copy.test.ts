/**
 * The copy between backends through their stores: a filesystem home's workspace log (which
 * the end-to-end test of `org migrate` leaves empty, since only agents write it) reaches
 * PostgreSQL in order with its ids, and a second copy adds nothing; an agent message whose
 * long text the home keeps cut reaches it whole.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { usePostgres } from '../../../test/support/pg-fixture.js';
import { END_TEXT, FrameBatch, type EncodedEvent } from '../../core/chat/index.js';
import type { StoredDelivery } from '../../core/schemas/index.js';
import type { LogEntry, StructureRecord } from '../../core/structures/types.js';
import type { StoredWebhook } from '../../core/webhooks/store.js';
import { createPgWebhookStore } from '../postgres/webhooks.js';
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

  it('copies webhooks with their secrets and deliveries, once; a pending delivery stays due in the target', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-copy-hooks-'));
    dirs.push(home);
    const webhook: StoredWebhook = {
      id: randomUUID(),
      structure_id: randomUUID(),
      url: 'https://example.com/hooks',
      events: ['run.completed', 'run.failed'],
      description: 'billing',
      created_at: '2030-01-01T00:00:00.000Z',
      secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0',
    };
    const delivery = (n: number, overrides: Partial<StoredDelivery>): StoredDelivery => ({
      id: `msg_copy_${n}`,
      webhook_id: webhook.id,
      event_type: 'run.completed',
      status: 'pending',
      response_code: null,
      attempts: [],
      created_at: `2030-01-01T00:00:0${n}.000Z`,
      next_attempt_at: `2030-01-01T00:00:0${n}.000Z`,
      body: `{"n":${n}}`,
      ...overrides,
    });
    const attempt = { at: '2030-01-01T00:00:01.000Z', response_code: 200, error: null, duration_ms: 4 };
    const done = delivery(1, { status: 'delivered', response_code: 200, attempts: [attempt], next_attempt_at: null });
    const owed = delivery(2, { response_code: 503, attempts: [{ ...attempt, response_code: 503 }], next_attempt_at: '2030-01-01T00:05:00.000Z' });
    const fs = await openFsState(home);
    await fs.webhooks.add(webhook);
    await fs.webhooks.enqueue([done, owed]);

    const db = await openPgState(pg.url(), 'the test database');
    try {
      const first = await copyState(fs, db);
      expect(first.webhooks).toEqual({ copied: 1, kept: 0 });
      expect(first['webhook deliveries']).toEqual({ copied: 2, kept: 0 });
      expect(await db.webhooks.list(webhook.structure_id)).toEqual([webhook]);
      expect(await db.webhooks.deliveries(webhook.id, { limit: 10 })).toEqual([owed, done]);
      const second = await copyState(fs, db);
      expect(second.webhooks).toEqual({ copied: 0, kept: 1 });
      expect(second['webhook deliveries']).toEqual({ copied: 0, kept: 2 });
      // An instance on the database sends the owed delivery when it is due.
      const instance = createPgWebhookStore(pg.open(), { instanceId: randomUUID(), leaseMs: 15_000 });
      expect(await instance.nextDue()).toEqual(new Date(owed.next_attempt_at!));
      expect((await instance.claim(new Date('2030-01-01T00:05:00.000Z'), 10)).map((claimed) => claimed.delivery)).toEqual([owed]);
    } finally {
      await db.close();
      await fs.close();
    }
  });

  it('copies an agent message whose long text the home kept cut with the whole text, rebuilt from its events', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-copy-text-'));
    dirs.push(home);
    const node = { id: randomUUID(), role_id: 'team-writer', label: 'Writer', parent_id: null, x: 0, y: 0, starting_context: '', container_url: null, created_at: '2030-01-01T00:00:00.000Z' };
    const record: StructureRecord = { version: 1, id: randomUUID(), name: 'S', template: 'blank', created_at: '2030-01-01T00:00:00.000Z', members: [], agents: [node], archive: [] };
    const where = { runId: randomUUID(), structureId: record.id, nodeId: node.id, roleId: node.role_id };
    const pieces = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(3, '0')} ${'é'.repeat(996)}\n`);
    const text = pieces.join('');
    const fs = await openFsState(home);
    await fs.structures.create(record);
    await fs.chat.startRun(where, { id: randomUUID(), run_id: where.runId, text: 'write it all', attachments: [], created_at: '2030-01-01T00:00:01.000Z' }, { id: randomUUID(), run_id: where.runId, created_at: '2030-01-01T00:00:01.000Z' });
    const writer = fs.chat.eventWriter(where);
    const timestamp = '2030-01-01T00:00:02.000Z';
    const events: EncodedEvent[] = pieces.map((content, i) => ({ seq: i + 1, type: 'text', json: JSON.stringify({ type: 'text', content, timestamp }) }));
    events.push({ seq: 41, type: 'complete', json: JSON.stringify({ type: 'complete', content: { summary: 'wrote', artifacts: [] }, timestamp }) });
    await writer.write([FrameBatch.of(events)]);
    await writer.close();
    await fs.chat.endRun(where, { run_id: where.runId, status: 'complete', text, summary: 'wrote', artifacts: [], completed_at: timestamp });
    const [kept] = await fs.chat.messages(where, { limit: 1 });
    expect(text.length).toBeGreaterThan(END_TEXT);
    expect(kept).toMatchObject({ sender: 'agent', text: text.slice(0, END_TEXT), text_truncated: true });

    const db = await openPgState(pg.url(), 'the test database');
    try {
      expect((await copyState(fs, db)).runs).toEqual({ copied: 1, kept: 0 });
      const [copied] = await db.chat.messages(where, { limit: 1 });
      expect(copied).toMatchObject({ sender: 'agent', status: 'complete', summary: 'wrote' });
      expect(copied!.text).toBe(text);
      expect(copied).not.toHaveProperty('text_truncated');
    } finally {
      await db.close();
      await fs.close();
    }
  });
});
