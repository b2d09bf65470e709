/**
 * The relay's spliced events survive a kill: `org serve` (a child process) relays a
 * container's endless flood of events of every shape the relay handles (text reused as
 * sent with the sequence number and timestamp spliced in, member order and whitespace
 * kept, multi-byte and escaped text, a member dropped by validation, structured
 * content), and is killed with SIGKILL mid-stream. After a restart, the run's stored
 * events must hold every frame the client received, byte for byte under the same id,
 * numbered 1, 2, 3… without a gap, each event what the container sent plus its
 * timestamp, and end with the restart's `error`. The run's file, read right after the
 * kill, holds those frames as the very bytes the client received.
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startServe, type ServeChild } from './helpers/child.js';
import { callJson } from './helpers/cluster.js';
import { parseSse } from './helpers/sse.js';

const ADMIN = 'relay-kill-admin-token-0123456789abcdef';
/** Frames the client receives before the kill: several chunks and several group commits. */
const BEFORE_KILL = 3000;

/** The i-th event of the flood as the container writes it, and the event org must store. */
function floodEvent(i: number): { raw: string; expected: { type: string; content: unknown } } {
  switch (i % 8) {
    case 0:
      return { raw: `{"type":"text","content":"plain ${i} "}`, expected: { type: 'text', content: `plain ${i} ` } };
    case 1: {
      const content = `naïve — 日本語 🎉 "q" \\ ${i}`;
      return { raw: JSON.stringify({ type: 'text', content }), expected: { type: 'text', content } };
    }
    case 2:
      return { raw: `{"content":"content first ${i}","type":"text"}`, expected: { type: 'text', content: `content first ${i}` } };
    case 3:
      return { raw: `{"type":"text","content":"trailing blanks ${i}"}  \t`, expected: { type: 'text', content: `trailing blanks ${i}` } };
    case 4:
      return { raw: `{ "type" : "thought", "content" : "spaced ${i}" }`, expected: { type: 'thought', content: `spaced ${i}` } };
    case 5:
      return { raw: `{"type":"text","content":"extra ${i}","secret":"dropped"}`, expected: { type: 'text', content: `extra ${i}` } };
    case 6:
      return { raw: `{"type":"tool_call","content":{"tool":"t","args":{"i":${i}}}}`, expected: { type: 'tool_call', content: { tool: 't', args: { i } } } };
    default:
      return { raw: `{"type":"milestone","content":{"title":"step ${i}"}}`, expected: { type: 'milestone', content: { title: `step ${i}` } } };
  }
}

/** A container agent that answers every turn with the flood, until the connection goes. */
function floodContainer(): Server {
  return createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let next = 0;
      const write = () => {
        while (!res.destroyed) {
          let text = '';
          for (const end = next + 256; next < end; next++) text += `data: ${floodEvent(next).raw}\n\n`;
          if (!res.write(text)) return void res.once('drain', write);
        }
      };
      write();
    });
  });
}

describe('relayed events after a kill', () => {
  let home: string;
  let container: Server;
  let serve: ServeChild | undefined;

  beforeAll(async () => {
    ensureBuilt();
    home = await mkdtemp(join(tmpdir(), 'org-relay-kill-'));
    container = floodContainer();
    container.listen(0, '127.0.0.1');
    await once(container, 'listening');
  });

  afterAll(async () => {
    await serve?.stop('SIGKILL');
    container.closeAllConnections();
    container.close();
    await rm(home, { recursive: true, force: true });
  });

  it('every frame a client received is stored under its id, byte for byte, numbered without gaps', { timeout: 120_000 }, async () => {
    const env = { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'config') };
    serve = await startServe({ home, env });
    const address = container.address();
    if (!address || typeof address !== 'object') throw new Error('the container has no address');
    const structure = await callJson<{ id: string }>(serve.url, 'POST', '/api/org/structures', ADMIN, { name: 'Relay', template: 'blank' });
    const node = await callJson(serve.url, 'POST', `/api/org/structures/${structure.body.id}/agents`, ADMIN, {
      role_id: 'relay-agent',
      label: 'Relay',
      container_url: `http://127.0.0.1:${address.port}`,
    });
    expect(node.status).toBe(201);

    const response = await request(`${serve.url}/api/org/chat/message`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ structure_id: structure.body.id, role_id: 'relay-agent', message: 'flood' }),
    });
    expect(response.statusCode).toBe(200);
    const runId = String(response.headers['x-org-run-id']);
    // Read until enough frames arrived, then kill the server at once, mid-stream.
    let received = '';
    let frames = 0;
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      const text = decoder.decode(chunk as Buffer, { stream: true });
      received += text;
      frames += text.split('\n\n').length - 1;
      if (frames >= BEFORE_KILL) {
        serve.process.kill('SIGKILL');
        break;
      }
    }
    await serve.exited;
    const seen = parseSse(received).frames;
    expect(seen.length).toBeGreaterThanOrEqual(BEFORE_KILL);
    // On disk: the run's location as a comment, then the frames as the client got them
    // (maybe more, written and not yet sent), only an unfinished last one cut short.
    const file = await readFile(join(home, '.org', 'runs', runId.slice(0, 2), `${runId}.sse`), 'utf8');
    const onDisk = file.split('\n\n').slice(0, -1);
    expect(JSON.parse(onDisk[0]!.replace(/^: /, ''))).toMatchObject({ run_id: runId, role_id: 'relay-agent' });
    const sent = received.split('\n\n').slice(0, -1).filter((frame) => !frame.startsWith(':'));
    expect(onDisk.slice(1, sent.length + 1)).toEqual(sent);

    serve = await startServe({ home, env });
    const replay = await request(`${serve.url}/api/org/chat/runs/${runId}/events`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(replay.statusCode).toBe(200);
    const stored = parseSse(await replay.body.text()).frames;

    // Numbered 1, 2, 3… and closed by the restart.
    expect(stored.map((frame) => Number(frame.id))).toEqual(stored.map((_, index) => index + 1));
    expect(stored.at(-1)!.event).toMatchObject({ type: 'error', content: { message: 'interrupted by restart' } });
    // Every frame the client saw is stored as it was sent to the client.
    expect(stored.slice(0, seen.length).map((frame) => [frame.id, frame.data])).toEqual(seen.map((frame) => [frame.id, frame.data]));
    // Each event is what the container sent (validated, spliced) with a timestamp.
    for (const [index, frame] of stored.slice(0, -1).entries()) {
      const { timestamp, ...event } = frame.event!;
      expect(event).toEqual(floodEvent(index).expected);
      expect(new Date(timestamp).toISOString()).toBe(timestamp);
    }
    // Reused text keeps the container's own member order and spacing.
    expect(stored[2]!.data!.startsWith('{"content":"content first 2","type":"text",')).toBe(true);
    expect(stored[4]!.data!.startsWith('{ "type" : "thought", "content" : "spaced 4" ,"timestamp":')).toBe(true);
    expect(stored[5]!.data).not.toContain('secret');
  });
});
