/**
 * The client's parts on a fake fetch (the real server is in test/cli-client.test.ts):
 * problem+json and network failures become OrgErrors, SSE frames split anywhere are
 * read whole, a silent stream times out, and the resume policy sends Last-Event-ID,
 * stops on 204, on an id-less error frame and on a 401, and retries what is transient.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OrgError, isOrgError } from '../core/errors.js';
import { isChatEvent } from '../core/schemas/chat.js';
import * as calls from './calls/index.js';
import { OrgClient } from './client.js';
import type { FetchLike } from './http.js';
import { networkError, problemError } from './problem.js';
import { readSse } from './sse.js';
import { parseEventData, type StreamedEvent } from './stream.js';

const encoder = new TextEncoder();

/** A body that yields `chunks` and then ends (or stays open when `hold`). */
function body(chunks: string[], hold = false): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (!hold) controller.close();
    },
  });
}

const frame = (id: number | undefined, event: unknown) => `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(event)}\n\n`;
const text = (content: string) => ({ type: 'text', content, timestamp: '2026-01-01T00:00:00.000Z' });
const complete = { type: 'complete', content: { summary: 'done', artifacts: [] }, timestamp: '2026-01-01T00:00:00.000Z' };

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** A fake fetch answering each request with the next of `answers`. */
function fakeFetch(answers: (() => Response)[]): { fetch: FetchLike; seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    fetch: async (url, init) => {
      seen.push({ url, method: init.method ?? 'GET', headers: init.headers as Record<string, string> });
      const next = answers.shift();
      if (!next) throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
      return next();
    },
  };
}

const sse = (chunks: string[], headers: Record<string, string> = {}) => () =>
  new Response(body(chunks), { status: 200, headers: { 'content-type': 'text/event-stream', ...headers } });

async function collect(stream: AsyncIterable<StreamedEvent>): Promise<StreamedEvent[]> {
  const got: StreamedEvent[] = [];
  for await (const item of stream) got.push(item);
  return got;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('problem details', () => {
  it('keeps the code, the detail, the field errors, extra members and Retry-After', () => {
    const error = problemError(
      429,
      JSON.stringify({ type: 'urn:org:problem:rate_limited', title: 'Too many requests', status: 429, detail: 'slow down', code: 'rate_limited', errors: [{ path: 'role', message: 'x' }, 'junk'], run_id: 'r1' }),
      '7',
    );
    expect(error).toBeInstanceOf(OrgError);
    expect(error).toMatchObject({ code: 'rate_limited', message: 'slow down', retryAfter: 7, extra: { run_id: 'r1' }, exitCode: 6 });
    expect(error.errors).toEqual([{ path: 'role', message: 'x' }]);
  });

  it('reads an answer that is not problem+json by its status', () => {
    expect(problemError(404, '<html>nope</html>')).toMatchObject({ code: 'not_found', message: 'the server answered HTTP 404' });
    expect(problemError(502, '')).toMatchObject({ code: 'internal', message: 'the server answered HTTP 502' });
  });

  it('says how to start a server when the connection is refused, and names a timeout', () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) });
    expect(networkError('http://h:1', refused)).toMatchObject({ code: 'unavailable', message: 'no org server at http://h:1 — start one with: org serve' });
    const timeout = Object.assign(new Error('t'), { name: 'TimeoutError' });
    expect(networkError('http://h:1', timeout)).toMatchObject({ code: 'timeout' });
  });

  it('recognises an OrgError made by another copy of the module', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('org.OrgError')]: true, code: 'not_found' });
    expect(isOrgError(foreign)).toBe(true);
    expect(isOrgError(new Error('x'))).toBe(false);
    expect(isOrgError(new OrgError('conflict', 'c'))).toBe(true);
  });
});

describe('calls', () => {
  it('sends the bearer and JSON, and reports a 401 to onUnauthorized', async () => {
    const { fetch, seen } = fakeFetch([
      () => Response.json({ structures: [] }),
      () => new Response(JSON.stringify({ code: 'unauthorized', detail: 'the bearer token is unknown or revoked' }), { status: 401 }),
    ]);
    let unauthorized = 0;
    const client = new OrgClient({ url: 'http://h:1/', token: 'tok', fetch, onUnauthorized: () => unauthorized++ });
    expect(await client.listStructures()).toEqual({ structures: [] });
    expect(seen[0]).toMatchObject({ url: 'http://h:1/api/org/structures', method: 'GET', headers: { authorization: 'Bearer tok' } });
    await expect(client.getStructure('x y')).rejects.toMatchObject({ code: 'unauthorized', message: 'the bearer token is unknown or revoked' });
    expect(seen[1]?.url).toBe('http://h:1/api/org/structures/x%20y');
    expect(unauthorized).toBe(1);
  });

  it('has every call of every part of the API as a method, no two parts naming the same one', async () => {
    const parts = Object.values(calls);
    const names = parts.flatMap((part) => Object.keys(part));
    expect(new Set(names).size).toBe(names.length);
    const client = new OrgClient({ url: 'http://h:1', token: 'tok' });
    for (const part of parts) for (const [name, method] of Object.entries(part)) expect((client as unknown as Record<string, unknown>)[name], name).toBe(method);
    // A call of one part using another's (whoami lists the structures), with the client's settings.
    const { fetch, seen } = fakeFetch([() => Response.json({ kind: 'user', user: { email: 'a@b.c' } }), () => Response.json({ structures: [] })]);
    expect(await new OrgClient({ url: 'http://h:1', token: 'tok', fetch }).whoami()).toEqual({ kind: 'user', admin: false, email: 'a@b.c', structures: [] });
    expect(seen.map((request) => [request.url, request.headers.authorization])).toEqual([
      ['http://h:1/api/org/whoami', 'Bearer tok'],
      ['http://h:1/api/org/structures', 'Bearer tok'],
    ]);
  });

  it('works against the page origin (an empty base URL), as the web UI does', async () => {
    const { fetch, seen } = fakeFetch([() => Response.json({ status: 'ok', version: '1', skills: 3 })]);
    await new OrgClient({ url: '', fetch }).health();
    expect(seen[0]?.url).toBe('/api/org/health');
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });
});

describe('SSE reading', () => {
  it('reads frames split anywhere and skips comments', async () => {
    const whole = `: keepalive\n\n${frame(1, text('a'))}${frame(2, complete)}`;
    const chunks = whole.match(/[\s\S]{1,7}/g)!;
    const messages = [];
    for await (const message of readSse(body(chunks), { idleTimeoutMs: 0 })) messages.push(message);
    expect(messages.map((m) => m.id)).toEqual(['1', '2']);
    expect(JSON.parse(messages[1]!.data)).toMatchObject({ type: 'complete' });
  });

  it('gives up on a body that stays silent past the idle limit', async () => {
    vi.useFakeTimers();
    const reading = (async () => {
      for await (const _ of readSse(body([frame(1, text('a'))], true), { idleTimeoutMs: 1000 })) void _;
    })();
    const outcome = expect(reading).rejects.toMatchObject({ code: 'timeout' });
    await vi.advanceTimersByTimeAsync(1000);
    await outcome;
  });
});

describe('chat streams', () => {
  it('takes only frames that hold a ChatEvent of the schema (the Node client’s check)', () => {
    expect(parseEventData(JSON.stringify(text('a')), isChatEvent)).toEqual(text('a'));
    expect(parseEventData(JSON.stringify(complete), isChatEvent)).toEqual(complete);
    expect(parseEventData('not json', isChatEvent)).toBeUndefined();
    expect(parseEventData(JSON.stringify({ type: 'text', content: 'no timestamp' }), isChatEvent)).toBeUndefined();
    expect(parseEventData(JSON.stringify({ type: 'tool_call', content: { tool: 5 }, timestamp: '2026-01-01T00:00:00.000Z' }), isChatEvent)).toBeUndefined();
    expect(parseEventData(JSON.stringify({ type: 'complete', content: { summary: 'no artifacts' }, timestamp: '2026-01-01T00:00:00.000Z' }), isChatEvent)).toBeUndefined();
    expect(parseEventData(JSON.stringify({ type: 'shout', content: 'x', timestamp: '2026-01-01T00:00:00.000Z' }), isChatEvent)).toBeUndefined();
  });

  it('by default takes frames with the envelope of a known event type (the web UI’s check, no schema library)', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(parseEventData(JSON.stringify(text('a')))).toEqual(text('a'));
    expect(parseEventData(JSON.stringify(complete))).toEqual(complete);
    expect(parseEventData('not json')).toBeUndefined();
    expect(parseEventData(JSON.stringify({ type: 'text', content: 'no timestamp' }))).toBeUndefined();
    expect(parseEventData(JSON.stringify({ type: 'shout', content: 'x', timestamp: at }))).toBeUndefined();
    expect(parseEventData(JSON.stringify({ type: 'text', content: { not: 'a string' }, timestamp: at }))).toBeUndefined();
    expect(parseEventData(JSON.stringify({ type: 'tool_call', content: 'not an object', timestamp: at }))).toBeUndefined();
    expect(parseEventData(JSON.stringify({ type: 'complete', content: null, timestamp: at }))).toBeUndefined();
  });

  it('resumes after a drop with Last-Event-ID and ends at the terminal event', async () => {
    const { fetch, seen } = fakeFetch([sse([frame(1, text('a')), frame(2, text('b'))], { 'x-org-run-id': 'run-1' }), sse([frame(3, complete)])]);
    const reasons: number[] = [];
    const client = new OrgClient({ url: 'http://h:1', token: 't', fetch, stream: { retryDelayMs: 0, onReconnect: (info) => reasons.push(info.lastEventId) } });
    const stream = await client.chat({ structure_id: 's', role_id: 'a-b', message: 'hi' });
    const got = await collect(stream);
    expect(got.map((item) => item.seq)).toEqual([1, 2, 3]);
    expect(reasons).toEqual([2]);
    expect(seen[1]).toMatchObject({ url: 'http://h:1/api/org/chat/runs/run-1/events', headers: { 'last-event-id': '2' } });
  });

  it('ends quietly when the server says the run is over with nothing more (204)', async () => {
    const { fetch } = fakeFetch([() => new Response(null, { status: 204 })]);
    const client = new OrgClient({ url: 'http://h:1', token: 't', fetch });
    expect(await collect(client.followRun('run-2', 5))).toEqual([]);
  });

  it('ends at an error frame without an id (the stream itself was closed, e.g. a revoked key)', async () => {
    const revoked = { type: 'error', content: { message: 'key revoked' }, timestamp: '2026-01-01T00:00:00.000Z' };
    const { fetch, seen } = fakeFetch([sse([frame(1, text('a')), frame(undefined, revoked)])]);
    const got = await collect(new OrgClient({ url: 'http://h:1', token: 't', fetch }).followRun('run-3'));
    expect(got.map((item) => [item.seq, item.event.type])).toEqual([
      [1, 'text'],
      [undefined, 'error'],
    ]);
    expect(seen).toHaveLength(1);
  });

  it('does not retry what cannot get better (401), and gives up after the retries on a lost server', async () => {
    const denied = fakeFetch([() => new Response(JSON.stringify({ code: 'unauthorized', detail: 'revoked' }), { status: 401 })]);
    await expect(collect(new OrgClient({ url: 'http://h:1', token: 't', fetch: denied.fetch }).followRun('run-4'))).rejects.toMatchObject({ code: 'unauthorized' });
    expect(denied.seen).toHaveLength(1);

    const lost = fakeFetch([]);
    const client = new OrgClient({ url: 'http://h:1', token: 't', fetch: lost.fetch, stream: { retryDelayMs: 0, maxReconnects: 3 } });
    const error = (await collect(client.followRun('run-5')).catch((e: unknown) => e)) as OrgError;
    expect(error).toMatchObject({ code: 'unavailable', extra: { run_id: 'run-5' } });
    expect(error.message).toContain('org chat --run run-5');
    expect(lost.seen).toHaveLength(4);
  });

  it('stops following when its signal aborts (the turn goes on)', async () => {
    const controller = new AbortController();
    const { fetch } = fakeFetch([() => new Response(body([frame(1, text('a'))], true), { status: 200 })]);
    const stream = new OrgClient({ url: 'http://h:1', token: 't', fetch }).followRun('run-6', 0, { signal: controller.signal });
    const got: StreamedEvent[] = [];
    for await (const item of stream) {
      got.push(item);
      controller.abort();
    }
    expect(got).toHaveLength(1);
  });
});
