/**
 * The container runtime over real HTTP: against the example agent
 * (examples/container-agent) for the behaviours it offers, and against small raw
 * servers for the exact request, odd framings and broken connections. Timeouts are
 * proven by the message only a fired timer produces, never by measuring a duration.
 */
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startContainerAgent, type ContainerAgent } from '../examples/container-agent/server.mjs';
import type { EventInput } from '../src/core/chat/types.js';
import { OrgError } from '../src/core/errors.js';
import { createContainerRuntime, type ContainerRuntimeOptions } from '../src/core/runtimes/container.js';
import { fakeTools, recordingEmit, sampleSkill, sampleTurn } from './helpers/runtime-contract.js';
import type { RelayedEvent, Turn } from '../src/core/runtimes/types.js';
import { notifier } from './helpers/notifier.js';

let agent: ContainerAgent;
const logs: string[] = [];
const logged = notifier();
const servers: Server[] = [];

beforeAll(async () => {
  agent = await startContainerAgent({
    log: (line) => {
      logs.push(line);
      logged.notify();
    },
    pauseMs: 100,
  });
});

afterAll(async () => {
  await agent.close();
});

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A raw HTTP server for one test; closed after it. */
async function rawServer(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs one turn and returns its events. */
async function turnOn(url: string, turn: Partial<Turn> | string, options: ContainerRuntimeOptions = {}, signal = new AbortController().signal): Promise<EventInput[]> {
  const recorder = recordingEmit();
  const runtime = createContainerRuntime(url, { connectTimeoutMs: 2000, idleTimeoutMs: 2000, ...options });
  await runtime.run(sampleTurn(typeof turn === 'string' ? { message: turn } : turn), recorder.emit, fakeTools(), signal);
  return recorder.events;
}

function lastError(events: EventInput[]): string {
  const last = events.at(-1);
  expect(last?.type).toBe('error');
  return last?.type === 'error' ? last.content.message : '';
}

/** Resolves once the example agent has logged that org closed the request of `runId`. */
const clientClosed = (runId: string) => logged.until(() => logs.includes(`container-agent: client closed (run ${runId})`), `the agent to see run ${runId} closed`);

describe('container runtime against the example agent', () => {
  it('relays the demo turn event by event', async () => {
    const events = await turnOn(agent.url, { message: 'ship the anvils', skills: [sampleSkill()] });
    expect(events.map((event) => event.type)).toEqual(['thought', 'tool_call', 'tool_result', 'thought', 'text', 'text', 'text', 'text', 'milestone', 'complete']);
    expect(events[1]).toEqual({ type: 'tool_call', content: { tool: 'word_count', args: { text: 'ship the anvils' } } });
    expect(events[3]).toEqual({ type: 'thought', content: 'The skill "Weekly report" (weekly-report) matches with score 0.9.' });
    expect(events.filter((event) => event.type === 'text').map((event) => event.content).join('')).toBe('You said: ship the anvils');
    expect(events.at(-1)).toEqual({ type: 'complete', content: { summary: 'Echoed 3 word(s) from Acme.', artifacts: [] } });
  });

  it('relays skill_learned with its body', async () => {
    const events = await turnOn(agent.url, 'learn');
    const learned = events.find((event) => event.type === 'skill_learned');
    expect(learned?.content).toMatchObject({ slug: 'echo-a-message', name: 'Echo a message', body: expect.stringContaining('## Step 1: Read the message') });
    expect(events.at(-1)?.type).toBe('complete');
  });

  it('relays an error event as the terminal event', async () => {
    const events = await turnOn(agent.url, 'fail');
    expect(events).toEqual([{ type: 'error', content: { message: 'the example agent was asked to fail' } }]);
  });

  it('ends with an error when the container sends data that is not JSON', async () => {
    const events = await turnOn(agent.url, 'garbage');
    expect(events[0]).toEqual({ type: 'thought', content: 'about to misbehave' });
    expect(lastError(events)).toBe('container sent an invalid event: data is not JSON: "this is not JSON"');
    expect(events).toHaveLength(2);
  });

  it('ends with an error when the container sends an event of the wrong shape', async () => {
    const events = await turnOn(agent.url, 'invalid');
    expect(lastError(events)).toBe('container sent an invalid event: milestone event: content.title must be a string');
  });

  it('ends with an error when the container stalls past the idle timeout, and closes the request', async () => {
    const turn = sampleTurn({ message: 'stall' });
    const recorder = recordingEmit();
    await createContainerRuntime(agent.url, { idleTimeoutMs: 300 }).run(turn, recorder.emit, fakeTools(), new AbortController().signal);
    expect(recorder.events[0]).toEqual({ type: 'thought', content: 'thinking forever' });
    expect(lastError(recorder.events)).toBe(`container at ${agent.url} sent nothing for 300 ms`);
    await clientClosed(turn.run_id);
  });

  it('keepalive comments reset the idle timer', async () => {
    // Pings every 50 ms for 24 pings: well over the 1 s idle timeout with no event, yet a
    // ping is 20 times more frequent than the timeout, so a loaded machine cannot fake a stall.
    const url = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let pings = 0;
      const timer = setInterval(() => {
        if (++pings <= 24) {
          res.write(': ping\n\n');
          return;
        }
        clearInterval(timer);
        res.end('data: {"type":"complete","content":{"summary":"pinged","artifacts":[]}}\n\n');
      }, 50);
      res.on('close', () => clearInterval(timer));
    });
    const started = performance.now();
    const events = await turnOn(url, 'x', { idleTimeoutMs: 1000 });
    expect(events).toEqual([{ type: 'complete', content: { summary: 'pinged', artifacts: [] } }]);
    // The stream outlived the idle timeout (a lower bound: it holds on any machine).
    expect(performance.now() - started).toBeGreaterThan(1000);
  });

  it('ends with an error when the stream ends without a terminal event', async () => {
    const events = await turnOn(agent.url, 'no-terminal');
    expect(events[0]).toEqual({ type: 'text', content: 'I will stop without saying goodbye.' });
    expect(lastError(events)).toBe('container closed the stream before a complete or error event');
  });

  it('reports a non-2xx answer with its status alone, its body only in the operator\'s log', async () => {
    const records: { message: string; fields?: Record<string, unknown> }[] = [];
    const events = await turnOn(agent.url, 'status 503', { log: (_level, message, fields) => records.push({ message, ...(fields ? { fields } : {}) }) });
    expect(events).toHaveLength(1);
    expect(lastError(events)).toBe(`container at ${agent.url} answered HTTP 503`);
    expect(JSON.stringify(events)).not.toContain('asked to answer');
    expect(records).toEqual([expect.objectContaining({ fields: expect.objectContaining({ status: 503, body: '{"error":{"message":"asked to answer 503"}}' }) })]);
  });

  it('cancel aborts the request at once and the container sees it closed', async () => {
    const turn = sampleTurn({ message: 'slow 200' });
    const recorder = recordingEmit();
    const controller = new AbortController();
    const running = createContainerRuntime(agent.url).run(turn, recorder.emit, fakeTools(), controller.signal);
    await recorder.waitFor(1);
    controller.abort(new Error('cancelled'));
    await running;
    const seen = recorder.events.length;
    expect(recorder.events.some((event) => event.type === 'complete' || event.type === 'error')).toBe(false);
    await clientClosed(turn.run_id);
    expect(recorder.events).toHaveLength(seen);
  });

  it('relays a flood of events in order, with bounded pending emits', async () => {
    const recorder = recordingEmit();
    let inFlight = 0;
    let maxInFlight = 0;
    // An emit that takes a little while, like the history's group commit.
    const emit = (event: EventInput) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return recorder.emit(event).then(() => new Promise<void>((resolve) => setImmediate(() => {
        inFlight--;
        resolve();
      })));
    };
    const count = 20_000;
    await createContainerRuntime(agent.url, { maxPendingBytes: 2048 }).run(sampleTurn({ message: `flood ${count}` }), emit, fakeTools(), new AbortController().signal);
    expect(recorder.events).toHaveLength(count + 1);
    expect(recorder.events.slice(0, count).every((event, index) => event.type === 'text' && event.content === `chunk ${index} `)).toBe(true);
    expect(recorder.events.at(-1)).toEqual({ type: 'complete', content: { summary: `flooded ${count} events`, artifacts: [] } });
    // Emits are not awaited one by one, and reading pauses once 2 KiB of events wait: what
    // is in flight is bounded by that plus one network chunk (~64 KiB, ~1–2k events), far
    // below the whole stream (about 1 MB here).
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThan(count / 4);
  });
});

describe('container runtime handing events over in batches', () => {
  it('hands the events of each received chunk to emit.batch at once, in order, each with the JSON text it came in and its parse', async () => {
    const url = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // One write: one chunk on the wire (small enough for one read).
      let body = '';
      for (let i = 0; i < 100; i++) body += `id: ${i}\ndata: {"type":"text","content":"part ${i}"}\n\n`;
      // A member validation drops, and escapes JSON.parse reads.
      body += 'data: {"type":"thought","content":"odd","extra":1}\n\n';
      body += 'data: {"type":"thought","content":"tab\\there \\u00e9 ✓"}\n\n';
      res.write(body);
      res.end('data: {"type":"complete","content":{"summary":"done","artifacts":[]}}\n\n');
    });
    const batches: RelayedEvent[][] = [];
    const single: EventInput[] = [];
    const emit = Object.assign(
      async (event: EventInput) => {
        single.push(event);
      },
      {
        batch: async (events: RelayedEvent[]) => {
          batches.push(events);
        },
      },
    );
    await createContainerRuntime(url).run(sampleTurn({ message: 'x' }), emit, fakeTools(), new AbortController().signal);
    expect(single).toEqual([]);
    const relayed = batches.flat();
    expect(relayed.map((item) => item.event)).toEqual([
      ...Array.from({ length: 100 }, (_, i) => ({ type: 'text', content: `part ${i}` })),
      { type: 'thought', content: 'odd' },
      { type: 'thought', content: 'tab\there é ✓' },
      { type: 'complete', content: { summary: 'done', artifacts: [] } },
    ]);
    expect(relayed[7]!.raw).toBe('{"type":"text","content":"part 7"}');
    expect(relayed[7]!.parsed).toEqual({ type: 'text', content: 'part 7' });
    expect(relayed[100]!.raw).toBe('{"type":"thought","content":"odd","extra":1}');
    expect(relayed[100]!.parsed).toEqual({ type: 'thought', content: 'odd', extra: 1 });
    // A hundred events written at once arrive in a chunk or a few, never one batch each.
    expect(batches.length).toBeLessThan(10);
  });
});

describe('container runtime against raw servers', () => {
  it('POSTs the turn JSON to {container_url}/turn with the SSE accept header and the run id', async () => {
    let seen: { method?: string; url?: string; headers?: IncomingHttpHeaders; body?: string } = {};
    const url = await rawServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, headers: req.headers, body };
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        res.end('data: {"type":"complete","content":{"summary":"ok"}}\n\n');
      });
    });
    const turn = sampleTurn({ message: 'check the request', skills: [sampleSkill()] });
    const recorder = recordingEmit();
    await createContainerRuntime(`${url}/agent/`).run(turn, recorder.emit, fakeTools(), new AbortController().signal);
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/agent/turn');
    expect(seen.headers?.accept).toBe('text/event-stream');
    expect(seen.headers?.['content-type']).toBe('application/json');
    expect(seen.headers?.['x-org-run-id']).toBe(turn.run_id);
    expect(JSON.parse(seen.body ?? '')).toEqual(turn);
    expect(recorder.events).toEqual([{ type: 'complete', content: { summary: 'ok', artifacts: [] } }]);
  });

  it('parses any SSE framing: ids, event names, comments, CRLF, multi-line data, split chunks', async () => {
    const url = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\r\n\r\nid: 1\r\nevent: message\r\ndata: {"type":"text",\r\n');
      setTimeout(() => {
        res.write('data: "content":"a\\nb"}\r\n\r\nretry: 1000\n\ndata: {"type":"th');
        setTimeout(() => res.end('ought","content":"x"}\n\ndata: {"type":"complete","content":{"summary":"s","artifacts":["r.md"]}}\n\n'), 5);
      }, 5);
    });
    const events = await turnOn(url, 'framing');
    expect(events).toEqual([
      { type: 'text', content: 'a\nb' },
      { type: 'thought', content: 'x' },
      { type: 'complete', content: { summary: 's', artifacts: ['r.md'] } },
    ]);
  });

  it('refuses malformed events that look almost plain with the same errors as any other, after relaying the plain ones before them', async () => {
    const cases: [string, string][] = [
      ['{"type":"text","content":"tab\there"}', 'data is not JSON: "{\\"type\\":\\"text\\",\\"content\\":\\"tab here\\"}"'],
      ['{"type":"text","content":"bad \\x"}', 'data is not JSON: "{\\"type\\":\\"text\\",\\"content\\":\\"bad \\\\x\\"}"'],
      ['{"type":"text","content":5}', 'text event: content must be a string'],
      ['{"type":"texts","content":"x"}', 'unknown event type "texts"'],
    ];
    for (const [bad, message] of cases) {
      const url = await rawServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`id: 1\ndata: {"type":"text","content":"fine"}\n\nid: 2\ndata: ${bad}\n\ndata: {"type":"text","content":"never relayed"}\n\n`);
      });
      const events = await turnOn(url, 'x');
      expect(events.slice(0, 1)).toEqual([{ type: 'text', content: 'fine' }]);
      expect(lastError(events)).toBe(`container sent an invalid event: ${message}`);
      expect(events).toHaveLength(2);
    }
  });

  it('stops at the terminal event and ignores what follows', async () => {
    const url = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"complete","content":{"summary":"done"}}\n\ndata: {"type":"text","content":"late"}\n\ndata: not json\n\n');
      // Never ends: the runtime must not wait for the end after a terminal event.
    });
    // No idle timeout that could end it either: a runtime that waited for the end would hang here.
    const events = await turnOn(url, 'x', { idleTimeoutMs: 3_600_000 });
    expect(events).toEqual([{ type: 'complete', content: { summary: 'done', artifacts: [] } }]);
  });

  it('bounds one event both ways it can grow (an unfinished line, data lines without their blank line), relaying what came before it', async () => {
    const shapes = [
      // One data line that never ends.
      `data: {"type":"text","content":"${'x'.repeat(3000)}`,
      // Many short data lines, the blank line that would end the event never sent.
      Array.from({ length: 400 }, () => 'data: xxxxxxxxxx\n').join(''),
    ];
    for (const shape of shapes) {
      const url = await rawServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: {"type":"text","content":"${'a'.repeat(900)}"}\n\n`);
        res.write(shape);
        // Never ends: only the limit can end this turn (no idle timeout will).
      });
      const events = await turnOn(url, 'x', { maxEventChars: 1000, idleTimeoutMs: 3_600_000 });
      expect(events).toEqual([
        { type: 'text', content: 'a'.repeat(900) },
        { type: 'error', content: { message: `container at ${url} sent an event larger than 1000 characters, the limit of one event; the turn was ended there` } },
      ]);
    }
  });

  it('reports an answer that is not an event stream', async () => {
    const url = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"complete"}');
    });
    expect(lastError(await turnOn(url, 'x'))).toBe(`container at ${url} answered with content type "application/json" instead of text/event-stream`);
  });

  it('reports a connection lost mid-stream', async () => {
    const url = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"thought","content":"one"}\n\n');
      setTimeout(() => res.destroy(), 20);
    });
    const events = await turnOn(url, 'x');
    expect(events[0]).toEqual({ type: 'thought', content: 'one' });
    expect(lastError(events)).toMatch(new RegExp(`^lost the connection to the container at ${url} mid-stream \\(.+\\)$`));
  });

  it('times out a container that accepts the connection but never answers', async () => {
    const url = await rawServer(() => undefined);
    const events = await turnOn(url, 'x', { connectTimeoutMs: 300 });
    expect(events).toEqual([{ type: 'error', content: { message: `container at ${url} did not answer within 300 ms` } }]);
  });

  it('reports a container that is down as unreachable, without waiting for a timeout', async () => {
    const url = await rawServer(() => undefined);
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    // Timeouts no test outlives: only the refused connection can end this turn.
    const events = await turnOn(url, 'x', { connectTimeoutMs: 3_600_000, idleTimeoutMs: 3_600_000 });
    expect(events).toEqual([{ type: 'error', content: { message: `container at ${url} is unreachable (ECONNREFUSED)` } }]);
  });

  it('sends URL credentials as basic auth and keeps them out of messages', async () => {
    let authorization: string | undefined;
    const url = await rawServer((req, res) => {
      authorization = req.headers.authorization;
      res.writeHead(500).end();
    });
    const withCredentials = url.replace('http://', 'http://agent:s3cret@');
    const message = lastError(await turnOn(withCredentials, 'x'));
    expect(authorization).toBe(`Basic ${Buffer.from('agent:s3cret').toString('base64')}`);
    expect(message).toBe(`container at ${url} answered HTTP 500`);
    expect(message).not.toContain('s3cret');
  });

  it('returns at once without emitting when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await turnOn(agent.url, 'hello', {}, controller.signal)).toEqual([]);
  });

  it('rejects a container_url that is not http(s) when created', () => {
    expect(() => createContainerRuntime('ftp://example.com')).toThrow(OrgError);
    expect(() => createContainerRuntime('not a url')).toThrow(/is not a URL/);
    expect(() => createContainerRuntime('http://127.0.0.1:1', { idleTimeoutMs: 0 })).toThrow(/idleTimeoutMs/);
  });
});
