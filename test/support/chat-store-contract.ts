/**
 * The contract of a `ChatStore`, run against every backend (the filesystem home,
 * PostgreSQL): messages, run events, locating runs and the open-run journal behave the
 * same whichever store the engine has.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { EncodedEvent } from '../../src/core/chat/encoded.js';
import { FrameBatch } from '../../src/core/chat/frames.js';
import { END_TEXT, type ChatStore, type RunLocation } from '../../src/core/chat/store.js';

/** A store under test, and the same backend opened again (a restart). */
export interface StoreFixture {
  store: ChatStore;
  reopen(): Promise<ChatStore>;
  cleanup(): Promise<void>;
}

const event = (seq: number, type: EncodedEvent['type'], content: unknown): EncodedEvent => ({
  seq,
  type,
  json: JSON.stringify({ type, content, timestamp: `2030-01-01T00:00:0${seq % 10}.000Z` }),
});

/** Registers the contract suite for one backend. */
export function describeChatStore(name: string, make: () => Promise<StoreFixture>): void {
  describe(`ChatStore contract: ${name}`, () => {
    const fixtures: StoreFixture[] = [];
    afterEach(async () => {
      for (const fixture of fixtures.splice(0)) await fixture.cleanup();
    });
    const open = async () => {
      const fixture = await make();
      fixtures.push(fixture);
      return fixture;
    };
    const node = { structureId: randomUUID(), nodeId: randomUUID(), roleId: 'team-node' };
    const start = async (store: ChatStore, text: string, at: string): Promise<RunLocation> => {
      const where = { runId: randomUUID(), ...node };
      await store.startRun(where, { id: randomUUID(), run_id: where.runId, text, attachments: [], created_at: at }, { id: randomUUID(), run_id: where.runId, created_at: at });
      return where;
    };

    it('records a run: the user message and a running agent message, newest first; the run can be located', async () => {
      const { store } = await open();
      const where = await start(store, 'hello', '2030-01-01T00:00:00.000Z');
      const messages = await store.messages(node, { limit: 10 });
      expect(messages.map((message) => [message.sender, message.status, message.text])).toEqual([
        ['agent', 'running', ''],
        ['user', 'complete', 'hello'],
      ]);
      expect(await store.locate(where.runId)).toEqual(where);
      expect(await store.locate(randomUUID())).toBeUndefined();
      expect(await store.events(randomUUID(), 0)).toEqual([]);
    });

    it('finds runs by the start of their id, any case, within the structures (and node) asked for, ordered and at most the limit', async () => {
      const { store } = await open();
      const other = { structureId: randomUUID(), nodeId: randomUUID(), roleId: 'other-node' };
      const at = '2030-01-01T00:00:00.000Z';
      const begin = async (runId: string, place: typeof node) => {
        await store.startRun({ runId, ...place }, { id: randomUUID(), run_id: runId, text: 'hi', attachments: [], created_at: at }, { id: randomUUID(), run_id: runId, created_at: at });
        return { runId, ...place };
      };
      const a = await begin('abcd1234-0000-4000-8000-000000000001', node);
      const b = await begin('abcd1234-0000-4000-8000-000000000002', node);
      const c = await begin('abcd9999-0000-4000-8000-000000000003', other);
      await begin('abce0000-0000-4000-8000-000000000004', node);
      const all = { structureIds: 'all' as const };
      expect(await store.findRuns('abcd', all, 10)).toEqual([a, b, c]);
      expect(await store.findRuns('abcd1234-0000-4000-8000-00000000000', all, 10)).toEqual([a, b]);
      expect(await store.findRuns('abcd', all, 2)).toEqual([a, b]);
      expect(await store.findRuns('abcd', { structureIds: [other.structureId] }, 10)).toEqual([c]);
      expect(await store.findRuns('abcd', { structureIds: [node.structureId, other.structureId], roleId: 'team-node' }, 10)).toEqual([a, b]);
      expect(await store.findRuns('abcd', { structureIds: [] }, 10)).toEqual([]);
      // Nothing matches a prefix no UUID can start with, or one too short to search by.
      for (const prefix of ['abcd1234x', 'abcd12340', 'abc', 'ffff']) expect(await store.findRuns(prefix, all, 10), prefix).toEqual([]);
      // What the engine hands the store is lowercase; a whole id finds its run after a restart too.
      expect(await (await fixtures.at(-1)!.reopen()).findRuns(b.runId, all, 10)).toEqual([b]);
    });

    it('keeps the origin and delegated_by of a delegated turn\'s user message, also after a restart', async () => {
      const fixture = await open();
      const parent = await start(fixture.store, 'the whole task', '2030-01-01T00:00:00.000Z');
      const where = { runId: randomUUID(), ...node };
      const delegatedBy = { role_id: 'team-lead', run_id: parent.runId, root_run_id: parent.runId };
      await fixture.store.startRun(
        where,
        { id: randomUUID(), run_id: where.runId, text: 'a part of it', attachments: [], created_at: '2030-01-01T00:00:01.000Z', origin: 'delegation:team-lead', delegated_by: delegatedBy },
        { id: randomUUID(), run_id: where.runId, created_at: '2030-01-01T00:00:01.000Z' },
        { startedBy: randomUUID() },
      );
      for (const store of [fixture.store, await fixture.reopen()]) {
        const [, user, , root] = await store.messages(node, { limit: 10 });
        expect(user).toMatchObject({ sender: 'user', text: 'a part of it', origin: 'delegation:team-lead', delegated_by: delegatedBy });
        expect(root).not.toHaveProperty('delegated_by');
      }
    });

    it('keeps the author of a user message (and its origin) across a restart; a message without one has none', async () => {
      const fixture = await open();
      const author = { kind: 'email' as const, id: 'ana@example.com', label: 'Ana "the analyst" <ana@example.com>' };
      const where = { runId: randomUUID(), ...node };
      await fixture.store.startRun(
        where,
        { id: randomUUID(), run_id: where.runId, text: 'by mail', attachments: [], created_at: '2030-01-02T00:00:00.000Z', origin: 'email:ana@example.com', author },
        { id: randomUUID(), run_id: where.runId, created_at: '2030-01-02T00:00:00.000Z' },
      );
      await start(fixture.store, 'anonymous', '2030-01-02T00:00:01.000Z');
      for (const store of [fixture.store, await fixture.reopen()]) {
        const users = (await store.messages(node, { limit: 10 })).filter((message) => message.sender === 'user');
        const byMail = users.find((message) => message.text === 'by mail');
        expect(byMail).toMatchObject({ origin: 'email:ana@example.com', author });
        expect(users.find((message) => message.text === 'anonymous')).not.toHaveProperty('author');
        expect((await store.messages(node, { limit: 10 })).filter((message) => message.sender === 'agent').every((message) => !('author' in message))).toBe(true);
      }
    });

    it('appends events in batches and gives back the same JSON text after any sequence number', async () => {
      const { store } = await open();
      const where = await start(store, 'hello', '2030-01-01T00:00:00.000Z');
      const writer = store.eventWriter(where);
      const batch1 = [event(1, 'thought', 'hm'), event(2, 'text', 'Hello "there"')];
      const batch2 = [event(3, 'complete', { summary: 'done', artifacts: ['a.md'] })];
      await Promise.all([writer.write([FrameBatch.of(batch1)]), writer.write([FrameBatch.of(batch2)])]);
      expect(await store.events(where.runId, 0)).toEqual([...batch1, ...batch2]);
      expect(await store.events(where.runId, 2)).toEqual(batch2);
      await store.endRun(where, { run_id: where.runId, status: 'complete', text: 'Hello "there"', summary: 'done', artifacts: ['a.md'], completed_at: '2030-01-01T00:00:03.000Z' });
      const [agent] = await store.messages(node, { limit: 1 });
      expect(agent).toMatchObject({ sender: 'agent', status: 'complete', text: 'Hello "there"', summary: 'done', artifacts: ['a.md'], completed_at: '2030-01-01T00:00:03.000Z' });
    });

    it('streams the events after any sequence number as the SSE frames a replay sends, events larger than a read and a torn tail included', async () => {
      const { store } = await open();
      const where = await start(store, 'a long run', '2030-01-01T00:00:00.000Z');
      const writer = store.eventWriter(where);
      // Small events, one far larger than a read of the file, and many more than a page.
      const events = [event(1, 'text', 'x'.repeat(200_000)), ...Array.from({ length: 600 }, (_, i) => event(i + 2, 'text', `part ${i} 😀`)), event(602, 'complete', { summary: 'done', artifacts: [] })];
      await writer.write([FrameBatch.of(events.slice(0, 300))]);
      await writer.write([FrameBatch.of(events.slice(300))]);
      const framesAfter = async (afterSeq: number) => {
        const parts: Buffer[] = [];
        for await (const part of store.eventFrames(where.runId, afterSeq)) parts.push(part);
        return Buffer.concat(parts).toString('utf8');
      };
      const expected = (list: EncodedEvent[]) => list.map((item) => `id: ${item.seq}\ndata: ${item.json}\n\n`).join('');
      expect(await framesAfter(0)).toBe(expected(events));
      expect(await framesAfter(1)).toBe(expected(events.slice(1)));
      expect(await framesAfter(590)).toBe(expected(events.slice(590)));
      expect(await framesAfter(602)).toBe('');
      expect(await framesAfter(0)).toBe(expected(await store.events(where.runId, 0)));
      // Stopping early closes what the stream holds.
      for await (const _part of store.eventFrames(where.runId, 0)) break;
      const unknown: Buffer[] = [];
      for await (const part of store.eventFrames(randomUUID(), 0)) unknown.push(part);
      expect(unknown).toEqual([]);
    });

    it('keeps an agent text of any length whole, or its start marked text_truncated (the whole being the run\'s text events), given whole or cut', async () => {
      const { store } = await open();
      const text = `${'long text '.repeat(5000)}😀 end`;
      for (const given of [{ text }, { text: text.slice(0, END_TEXT), text_truncated: true as const }]) {
        const where = await start(store, 'write a lot', '2030-01-01T00:00:00.000Z');
        const writer = store.eventWriter(where);
        await writer.write([FrameBatch.of([event(1, 'text', text.slice(0, 30_000)), event(2, 'text', text.slice(30_000)), event(3, 'complete', { summary: 'done', artifacts: [] })])]);
        await store.endRun(where, { run_id: where.runId, status: 'complete', ...given, summary: 'done', artifacts: [], completed_at: '2030-01-01T00:00:03.000Z' });
        const [agent] = await store.messages(node, { limit: 1 });
        expect(agent).toMatchObject({ run_id: where.runId, sender: 'agent', status: 'complete', summary: 'done' });
        if (agent!.text_truncated) {
          expect(agent!.text.length).toBeGreaterThan(0);
          expect(text.startsWith(agent!.text)).toBe(true);
        } else {
          expect(agent!.text).toBe(text);
        }
      }
    });

    it('pages messages with limit and before, and knows which message ids exist', async () => {
      const { store } = await open();
      for (let i = 0; i < 3; i++) await start(store, `m${i}`, `2030-01-01T00:00:0${i}.000Z`);
      const all = await store.messages(node, { limit: 100 });
      expect(all.filter((message) => message.sender === 'user').map((message) => message.text)).toEqual(['m2', 'm1', 'm0']);
      const page = await store.messages(node, { limit: 2, before: all[2]!.id });
      expect(page.map((message) => message.id)).toEqual([all[3]!.id, all[4]!.id]);
      expect(await store.hasMessage(node, all[0]!.id)).toBe(true);
      expect(await store.hasMessage(node, randomUUID())).toBe(false);
    });

    it('after a restart: events and messages are kept, runs left open are reported once, ended ones never', async () => {
      const fixture = await open();
      const ended = await start(fixture.store, 'ended', '2030-01-01T00:00:00.000Z');
      await fixture.store.eventWriter(ended).write([FrameBatch.of([event(1, 'complete', { summary: 's', artifacts: [] })])]);
      await fixture.store.endRun(ended, { run_id: ended.runId, status: 'complete', text: '', summary: 's', artifacts: [], completed_at: '2030-01-01T00:00:01.000Z' });
      const open1 = await start(fixture.store, 'left open', '2030-01-01T00:00:02.000Z');
      await fixture.store.eventWriter(open1).write([FrameBatch.of([event(1, 'text', 'partial')])]);

      const again = await fixture.reopen();
      expect(await again.openRuns()).toEqual([open1]);
      expect(await again.events(open1.runId, 0)).toEqual([event(1, 'text', 'partial')]);
      expect(await again.locate(ended.runId)).toEqual(ended);
      const messages = await again.messages(node, { limit: 10 });
      expect(messages.map((message) => message.status)).toEqual(['running', 'complete', 'complete', 'complete']);
      await again.endRun(open1, { run_id: open1.runId, status: 'error', text: 'partial', summary: null, artifacts: [], completed_at: '2030-01-01T00:00:03.000Z' });
      await again.close();
      const third = await fixture.reopen();
      expect(await third.openRuns()).toEqual([]);
      await third.close();
    });
  });
}
