#!/usr/bin/env node
/**
 * An example container agent for org (docs/runtime-protocol.md), in plain node:http
 * with no dependencies. org POSTs the enriched turn to `/turn`; the agent answers with
 * a `text/event-stream` of chat events and ends with `complete` (or `error`).
 *
 *   node examples/container-agent/server.mjs --port 8700 [--host 127.0.0.1]
 *
 * The first word of the message selects a behaviour, which is what org's tests and
 * benchmark use; any other message gets the normal demo turn.
 *
 *   slow [ms]      the demo turn with a pause between events (default 200 ms); stops,
 *                  and logs "client closed", when org closes the request
 *   garbage        sends data that is not JSON
 *   invalid        sends JSON that is not a valid chat event
 *   stall          sends one event, then nothing (the connection stays open)
 *   no-terminal    ends the stream without complete or error
 *   keepalive [n]  sends n `: ping` comments (default 5), one per pause, then completes
 *   learn          emits skill_learned {slug, name, body} then completes
 *   fail           ends with an error event
 *   status <code>  answers with that HTTP status and a JSON body
 *   flood <n>      n text events as fast as the socket takes them, then complete
 *
 * A message with lines `delegate to <role_id>: <task>` hands each task, in order, to that
 * node of the structure with the turn's `delegation` credentials (org's delegation API,
 * docs/runtime-protocol.md "Delegation") and completes with what each node answered.
 */
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { createServer } from 'node:http';
import process from 'node:process';
import { setTimeout as delay } from 'node:timers/promises';
import { URL, pathToFileURL } from 'node:url';

/** Node's built-in HTTP client (Node 18+), for the delegation requests. */
const { fetch, AbortController } = globalThis;

/** Largest request body accepted (the turn carries attachment paths, not contents). */
const MAX_BODY = 25 * 1024 * 1024;

/** One SSE frame: optional `id:` line, one `data:` line, blank line. */
function frame(event, id) {
  return `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(event)}\n\n`;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error('request body too large'), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A stream of events to one client that knows when the client has gone. */
class EventStream {
  constructor(res) {
    this.res = res;
    this.seq = 0;
    this.closed = false;
    res.on('close', () => {
      this.closed = !res.writableFinished;
    });
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
  }

  /** Writes an event; resolves once the socket can take more. */
  async send(event) {
    return this.write(frame(event, ++this.seq));
  }

  async write(text) {
    if (this.closed) return;
    if (this.res.write(text)) return;
    await new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done).off('close', done);
        resolve(undefined);
      };
      this.res.on('drain', done).on('close', done);
    });
  }

  end() {
    if (!this.closed) this.res.end();
  }
}

/** The normal turn: thought, a tool call, text built from the message, a milestone, complete. */
async function demoTurn(turn, stream, pause) {
  const words = turn.message.split(/\s+/).filter(Boolean);
  const skill = turn.skills?.[0];
  const steps = [
    { type: 'thought', content: `Reading the request for ${turn.node?.label ?? 'this node'}.` },
    { type: 'tool_call', content: { tool: 'word_count', args: { text: turn.message } } },
    { type: 'tool_result', content: { tool: 'word_count', result: { words: words.length, characters: turn.message.length } } },
    ...(skill ? [{ type: 'thought', content: `The skill "${skill.name}" (${skill.slug}) matches with score ${skill.score}.` }] : []),
    { type: 'text', content: 'You said: ' },
    ...words.map((word, index) => ({ type: 'text', content: index < words.length - 1 ? `${word} ` : word })),
    { type: 'milestone', content: { title: 'Read the request' } },
    { type: 'complete', content: { summary: `Echoed ${words.length} word(s) from ${turn.structure?.name ?? 'the workspace'}.`, artifacts: [] } },
  ];
  for (const event of steps) {
    if (stream.closed) return false;
    await stream.send(event);
    if (pause > 0 && event.type !== 'complete') await delay(pause);
  }
  return true;
}

/** A line asking for a delegation: `delegate to <role_id>: <task>`. */
const DELEGATE_LINE = /^\s*delegate to ([a-z0-9]+(?:-[a-z0-9]+)+)\s*:\s*(\S.*)$/i;

/** The delegations a message asks for, in order. */
function delegationsOf(message) {
  const asks = [];
  for (const line of message.split('\n')) {
    const match = DELEGATE_LINE.exec(line);
    if (match) asks.push({ roleId: match[1].toLowerCase(), task: match[2].trim() });
  }
  return asks;
}

/**
 * Hands one task to another node through org: `POST {api_url}/api/org/chat/message/sync`
 * with the run's bearer. org runs it as a turn of that node and answers with its summary;
 * a refused delegation (the node itself, a cycle, a chain too deep…) answers 409 with why.
 */
async function delegate(turn, ask, signal, trace) {
  const access = turn.delegation;
  if (!access) return { ok: false, summary: 'this org hands out no delegation credentials' };
  const response = await fetch(`${access.api_url.replace(/\/+$/, '')}/api/org/chat/message/sync`, {
    method: 'POST',
    headers: { ...trace, authorization: `Bearer ${access.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ structure_id: turn.structure.id, role_id: ask.roleId, message: ask.task }),
    signal,
  });
  const body = await response.json().catch(() => ({}));
  if (response.ok) return { ok: true, runId: body.run_id, summary: body.summary || 'done' };
  return { ok: false, summary: body.detail ?? `org answered HTTP ${response.status}` };
}

/**
 * The turn of a message that asks for delegations: each in order, then a summary of what
 * came back. Each request carries the trace context org sent with the turn (`trace`), so
 * the delegated run stays in the delegating run's trace on any instance.
 */
async function delegateTurn(turn, stream, asks, trace) {
  const stopped = new AbortController();
  stream.res.on('close', () => stopped.abort());
  const lines = [];
  for (const ask of asks) {
    if (stream.closed) return;
    await stream.send({ type: 'thought', content: `Handing "${ask.task}" to ${ask.roleId}.` });
    let outcome;
    try {
      outcome = await delegate(turn, ask, stopped.signal, trace);
    } catch (error) {
      if (stream.closed) return;
      outcome = { ok: false, summary: `the delegation failed: ${error.message}` };
    }
    const line = `${ask.roleId} ${outcome.ok ? 'did it' : 'could not'}: ${outcome.summary}`;
    lines.push(line);
    await stream.send({ type: 'text', content: `${line}\n` });
  }
  await stream.send({ type: 'complete', content: { summary: `Delegated ${asks.length} task(s). ${lines.join(' ')}`, artifacts: [] } });
}

async function flood(stream, count) {
  const batch = 512;
  for (let sent = 0; sent < count && !stream.closed; ) {
    let text = '';
    const end = Math.min(count, sent + batch);
    for (; sent < end; sent++) text += frame({ type: 'text', content: `chunk ${sent} ` }, ++stream.seq);
    await stream.write(text);
  }
  await stream.send({ type: 'complete', content: { summary: `flooded ${count} events`, artifacts: [] } });
}

/** The W3C trace context of a request (`traceparent`, `tracestate`), as org sends it with a turn when traces are on. */
function traceOf(headers) {
  const trace = {};
  for (const name of ['traceparent', 'tracestate']) if (typeof headers[name] === 'string') trace[name] = headers[name];
  return trace;
}

/** Answers one turn according to the first word of its message; `trace` is the turn's trace context. */
async function answer(turn, res, options, log, trace) {
  const [command = '', argument] = turn.message.trim().split(/\s+/);
  const number = Number.parseInt(argument ?? '', 10);
  if (command === 'status') {
    const status = Number.isInteger(number) && number >= 200 && number <= 599 ? number : 500;
    sendJson(res, status, { error: { message: `asked to answer ${status}` } });
    return;
  }
  const stream = new EventStream(res);
  res.on('close', () => {
    if (stream.closed) log(`container-agent: client closed (run ${turn.run_id})`);
  });
  const asks = delegationsOf(turn.message);
  if (asks.length > 0) {
    await delegateTurn(turn, stream, asks, trace);
    stream.end();
    return;
  }
  switch (command) {
    case 'slow':
      await demoTurn(turn, stream, Number.isInteger(number) && number >= 0 ? number : 200);
      break;
    case 'garbage':
      await stream.send({ type: 'thought', content: 'about to misbehave' });
      await stream.write('data: this is not JSON\n\n');
      break;
    case 'invalid':
      await stream.send({ type: 'milestone', content: { name: 'a milestone needs a title' } });
      break;
    case 'stall':
      await stream.send({ type: 'thought', content: 'thinking forever' });
      return; // the stream stays open until the client gives up
    case 'no-terminal':
      await stream.send({ type: 'text', content: 'I will stop without saying goodbye.' });
      break;
    case 'keepalive': {
      const count = Number.isInteger(number) && number >= 0 ? number : 5;
      await stream.send({ type: 'thought', content: `pinging ${count} time(s)` });
      for (let i = 0; i < count && !stream.closed; i++) {
        await delay(options.pauseMs);
        await stream.write(': ping\n\n');
      }
      await stream.send({ type: 'complete', content: { summary: `pinged ${count} time(s)`, artifacts: [] } });
      break;
    }
    case 'learn':
      await stream.send({ type: 'thought', content: 'No skill covers this; working it out.' });
      await stream.send({ type: 'milestone', content: { title: 'Worked it out' } });
      await stream.send({
        type: 'skill_learned',
        content: {
          slug: 'echo-a-message',
          name: 'Echo a message',
          body: '## Step 1: Read the message\n\nRead what the person wrote.\n\n## Step 2: Echo it\n\nRepeat it back, word for word.\n',
        },
      });
      await stream.send({ type: 'complete', content: { summary: 'Learned how to echo a message.', artifacts: [] } });
      break;
    case 'fail':
      await stream.send({ type: 'error', content: { message: 'the example agent was asked to fail' } });
      break;
    case 'flood':
      await flood(stream, Number.isInteger(number) && number >= 0 ? number : 1000);
      break;
    default:
      await demoTurn(turn, stream, 0);
  }
  stream.end();
}

/**
 * Starts the example agent. Resolves once it listens.
 * @param {{port?: number, host?: string, pauseMs?: number, log?: (line: string) => void}} [options]
 *   `pauseMs` is the pause of `keepalive` (default 100 ms); `log` receives the log lines (default stdout).
 * @returns {Promise<{url: string, port: number, close(): Promise<void>}>}
 */
export async function startContainerAgent(options = {}) {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((line) => console.log(line));
  const settings = { pauseMs: options.pauseMs ?? 100 };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === '/health') return sendJson(res, 200, { ok: true });
    if (path !== '/turn') return sendJson(res, 404, { error: { message: 'not found; POST /turn' } });
    if (req.method !== 'POST') return sendJson(res, 405, { error: { message: 'use POST' } });
    readBody(req)
      .then(async (text) => {
        let turn;
        try {
          turn = JSON.parse(text);
        } catch {
          return sendJson(res, 400, { error: { message: 'the body must be the turn as JSON' } });
        }
        if (typeof turn?.message !== 'string') return sendJson(res, 400, { error: { message: 'the turn needs a message' } });
        await answer(turn, res, settings, log, traceOf(req.headers));
      })
      .catch((error) => {
        if (!res.headersSent) sendJson(res, error.status ?? 500, { error: { message: error.message } });
        else res.destroy();
      });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve(undefined));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      }),
  };
}

function argument(name) {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number.parseInt(argument('--port') ?? process.env.PORT ?? '8700', 10);
  const agent = await startContainerAgent({ port, host: argument('--host') ?? '127.0.0.1' });
  console.log(`container-agent: listening on ${agent.url}`);
  const stop = () => {
    void agent.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
