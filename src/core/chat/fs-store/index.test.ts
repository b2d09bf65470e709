import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeChatStore } from '../../../../test/support/chat-store-contract.js';
import { FrameBatch } from '../frames.js';
import { createFsChatStore } from './index.js';

const nodeDir = (root: string) => (structureId: string, nodeId: string) => join(root, 'structures', structureId, 'nodes', nodeId);

describeChatStore('filesystem', async () => {
  const root = await mkdtemp(join(tmpdir(), 'org-chat-store-'));
  const make = () => createFsChatStore({ stateDir: root, nodeDir: nodeDir(root) });
  const store = make();
  return {
    store,
    reopen: async () => make(),
    cleanup: async () => {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
});

describe('filesystem chat store', () => {
  it('moves the events of an earlier version’s history file to run files on first use, keeping every message', async () => {
    const root = await mkdtemp(join(tmpdir(), 'org-chat-legacy-'));
    const structureId = '11111111-1111-4111-8111-111111111111';
    const nodeId = '22222222-2222-4222-8222-222222222222';
    const runId = '33333333-3333-4333-8333-333333333333';
    const dir = nodeDir(root)(structureId, nodeId);
    await mkdir(dir, { recursive: true });
    const legacy = [
      { kind: 'user', id: 'u1', run_id: runId, text: 'hi', attachments: [], created_at: '2030-01-01T00:00:00.000Z' },
      { kind: 'start', id: 'a1', run_id: runId, created_at: '2030-01-01T00:00:00.000Z' },
      { kind: 'event', run_id: runId, seq: 1, event: { type: 'text', content: 'Hello', timestamp: '2030-01-01T00:00:01.000Z' } },
      { kind: 'event', run_id: runId, seq: 2, event: { type: 'complete', content: { summary: 'done', artifacts: [] }, timestamp: '2030-01-01T00:00:02.000Z' } },
      { kind: 'end', run_id: runId, status: 'complete', summary: 'done', artifacts: [], completed_at: '2030-01-01T00:00:02.000Z' },
    ];
    await writeFile(join(dir, 'history.jsonl'), legacy.map((record) => `${JSON.stringify(record)}\n`).join(''));
    await writeFile(join(root, 'runs.jsonl'), `${JSON.stringify({ run_id: runId, structure_id: structureId, node_id: nodeId, role_id: 'team-a' })}\n${JSON.stringify({ run_id: runId, end: true })}\n`);

    const store = createFsChatStore({ stateDir: root, nodeDir: nodeDir(root) });
    expect(await store.openRuns()).toEqual([]);
    expect(await store.locate(runId)).toEqual({ runId, structureId, nodeId, roleId: 'team-a' });
    expect((await store.events(runId, 0)).map((event) => JSON.parse(event.json))).toEqual([legacy[2]!.event, legacy[3]!.event]);
    const messages = await store.messages({ structureId, nodeId }, { limit: 5 });
    expect(messages.map((message) => [message.sender, message.text, message.status])).toEqual([
      ['agent', 'Hello', 'complete'],
      ['user', 'hi', 'complete'],
    ]);
    expect(await readFile(join(dir, 'history.jsonl'), 'utf8')).not.toContain('"kind":"event"');
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    { bound: 'its byte budget', limits: { cacheBytes: 1 } },
    { bound: 'its node count, whatever their bytes', limits: { cacheBytes: 64 * 1024 * 1024, cacheNodes: 1 } },
  ])('drops node messages from memory beyond $bound and reads them again from disk', async ({ limits }) => {
    const root = await mkdtemp(join(tmpdir(), 'org-chat-cache-'));
    const store = createFsChatStore({ stateDir: root, nodeDir: nodeDir(root), ...limits });
    const nodes = ['a', 'b'].map((name, index) => ({ structureId: `4444444${index}-4444-4444-8444-444444444444`, nodeId: `5555555${index}-5555-4555-8555-555555555555`, roleId: `team-${name}` }));
    for (const node of nodes) {
      const runId = `6666666${nodes.indexOf(node)}-6666-4666-8666-666666666666`;
      await store.startRun({ runId, ...node }, { id: `u-${runId}`, run_id: runId, text: `to ${node.roleId}`, attachments: [], created_at: '2030-01-01T00:00:00.000Z' }, { id: `a-${runId}`, run_id: runId, created_at: '2030-01-01T00:00:00.000Z' });
    }
    for (const node of nodes) expect((await store.messages(node, { limit: 5 })).at(-1)?.text).toBe(`to ${node.roleId}`);
    // Node a was dropped from memory when b was read: a record added to its file behind the
    // store's back shows, which it would not if a were still cached.
    const extra = { kind: 'user', id: 'outside', run_id: 'x', text: 'added on disk', attachments: [], created_at: '2030-01-01T00:00:01.000Z' };
    await writeFile(join(nodeDir(root)(nodes[0]!.structureId, nodes[0]!.nodeId), 'history.jsonl'), `${JSON.stringify(extra)}\n`, { flag: 'a' });
    expect((await store.messages(nodes[0]!, { limit: 5 }))[0]?.text).toBe('added on disk');
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  it('reads the runs an earlier version wrote as JSON lines, and rewrites the ones left open as SSE frames before recovery appends to them', async () => {
    const root = await mkdtemp(join(tmpdir(), 'org-chat-legacy-runs-'));
    const node = { structureId: '77777777-7777-4777-8777-777777777777', nodeId: '88888888-8888-4888-8888-888888888888', roleId: 'team-a' };
    const ended = '99999999-9999-4999-8999-999999999990';
    const open = '99999999-9999-4999-8999-999999999991';
    const torn = '99999999-9999-4999-8999-999999999992';
    const header = (runId: string) => JSON.stringify({ run_id: runId, structure_id: node.structureId, node_id: node.nodeId, role_id: node.roleId });
    const event = (seq: number, content: string) => ({ seq, type: 'text' as const, json: JSON.stringify({ type: 'text', content, timestamp: '2030-01-01T00:00:00.000Z' }) });
    const line = (e: { seq: number; json: string }) => `{"seq":${e.seq},"event":${e.json}}\n`;
    const runFile = (runId: string, extension: string) => join(root, 'runs', runId.slice(0, 2), `${runId}.${extension}`);
    await mkdir(join(root, 'runs', '99'), { recursive: true });
    // Ended: two events and a line torn by a crash. Open: one event. Torn: a location cut short.
    await writeFile(runFile(ended, 'jsonl'), `${header(ended)}\n${line(event(1, 'one'))}${line(event(2, 'two'))}{"seq":3,"ev`);
    await writeFile(runFile(open, 'jsonl'), `${header(open)}\n${line(event(1, 'still going'))}`);
    await writeFile(runFile(torn, 'sse'), ': {"run_id":"99');
    const journal = [{ run_id: ended, structure_id: node.structureId, node_id: node.nodeId, role_id: node.roleId }, { run_id: ended, end: true }, { run_id: open, structure_id: node.structureId, node_id: node.nodeId, role_id: node.roleId }, { run_id: torn, structure_id: node.structureId, node_id: node.nodeId, role_id: node.roleId }];
    await writeFile(join(root, 'runs.jsonl'), journal.map((record) => `${JSON.stringify(record)}\n`).join(''));

    const store = createFsChatStore({ stateDir: root, nodeDir: nodeDir(root) });
    expect((await store.openRuns()).map((where) => where.runId)).toEqual([open, torn]);
    // The ended run is read where it is, as it is.
    expect(await store.locate(ended)).toEqual({ runId: ended, ...node });
    expect(await store.events(ended, 0)).toEqual([event(1, 'one'), event(2, 'two')]);
    expect(await store.events(ended, 1)).toEqual([event(2, 'two')]);
    // Replays stream it as frames, its torn line left out.
    const streamed: Buffer[] = [];
    for await (const part of store.eventFrames(ended, 1)) streamed.push(part);
    expect(Buffer.concat(streamed).toString('utf8')).toBe(`id: 2\ndata: ${event(2, 'two').json}\n\n`);
    expect(await readFile(runFile(ended, 'jsonl'), 'utf8')).toContain('"seq":3');
    // The open ones now have current files (the old one gone, the cut location whole), and take appends.
    await expect(readFile(runFile(open, 'jsonl'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(runFile(open, 'sse'), 'utf8')).toBe(`: ${header(open)}\n\nid: 1\ndata: ${event(1, 'still going').json}\n\n`);
    for (const runId of [open, torn]) {
      const writer = store.eventWriter({ runId, ...node });
      await writer.write([FrameBatch.of([event(runId === open ? 2 : 1, 'interrupted')])]);
      await writer.close();
      expect(await store.locate(runId)).toEqual({ runId, ...node });
    }
    expect(await store.events(open, 0)).toEqual([event(1, 'still going'), event(2, 'interrupted')]);
    expect(await store.events(torn, 0)).toEqual([event(1, 'interrupted')]);
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

});
