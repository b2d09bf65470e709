/**
 * A scripted OpenAI-compatible chat-completions server for tests: real HTTP on
 * 127.0.0.1, real streamed `chat.completion.chunk` SSE (text split into chunks, tool
 * calls split over several chunks with argument fragments, `data: [DONE]`), scripted
 * HTTP errors, and a record of every request body so tests can check what the
 * runtime sent (tools, tool results, the prompt).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { notifier, type Notifier } from './notifier.js';

/** A scripted tool call. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** The arguments JSON, or its fragments as they should be streamed. */
  arguments: string | string[];
}

/** One scripted answer. */
export type ScriptedReply =
  /** A streamed completion: text chunks, then tool calls, then the finish reason. */
  | {
      text?: string | string[];
      /** Reasoning deltas (`delta.reasoning_content`), streamed before the text. */
      reasoning?: string;
      toolCalls?: ScriptedToolCall[];
      /** Default `tool_calls` when there are tool calls, else `stop`. */
      finishReason?: string;
      /** Pause before each chunk, in ms (default 0). */
      delayMs?: number;
      /** Leave out `data: [DONE]` (and the finish reason when `truncate`). */
      noDone?: boolean;
      /** Stop after the text, without finish reason or [DONE], and close the connection. */
      truncate?: boolean;
    }
  /** An HTTP error with an OpenAI-style `{error: {message}}` body (or the given body). */
  | { status: number; error: string; body?: string }
  /** A 200 stream that carries an error object as its only chunk. */
  | { streamError: string };

/** What a test sees of one request. */
export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> & { messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[] };
}

/** A running scripted server. */
export interface ScriptedLlm {
  /** Base URL to give the runtime, ending in `/v1`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** How many streams the client closed before they ended. */
  readonly clientClosed: number;
  /** Notified on each request received and each stream the client closes. */
  changes: Notifier;
  close(): Promise<void>;
}

/** The script: a list consumed in order, or a function of the request (and its index). */
export type Script = ScriptedReply[] | ((request: RecordedRequest, index: number) => ScriptedReply);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function chunk(model: string, delta: Record<string, unknown>, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })}\n\n`;
}

/** The SSE frames of a streamed reply. */
function frames(model: string, reply: Extract<ScriptedReply, { toolCalls?: unknown }>): string[] {
  const out = [chunk(model, { role: 'assistant', content: '' })];
  if (reply.reasoning) out.push(chunk(model, { reasoning_content: reply.reasoning }));
  const texts = typeof reply.text === 'string' ? [reply.text] : (reply.text ?? []);
  for (const text of texts) out.push(chunk(model, { content: text }));
  if (reply.truncate) return out;
  (reply.toolCalls ?? []).forEach((call, index) => {
    const fragments = typeof call.arguments === 'string' ? [call.arguments] : call.arguments;
    out.push(chunk(model, { tool_calls: [{ index, id: call.id ?? `call_${index}_${Math.random().toString(36).slice(2, 8)}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const fragment of fragments) out.push(chunk(model, { tool_calls: [{ index, function: { arguments: fragment } }] }));
  });
  out.push(chunk(model, {}, reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop')));
  if (!reply.noDone) out.push('data: [DONE]\n\n');
  return out;
}

async function stream(res: ServerResponse, model: string, reply: Extract<ScriptedReply, { toolCalls?: unknown }>, gone: () => boolean): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  for (const [index, text] of frames(model, reply).entries()) {
    if (reply.delayMs) await sleep(reply.delayMs);
    if (gone()) return;
    if (index === 1 && text.length > 20) {
      // Split one frame across two writes, as a real network might.
      res.write(text.slice(0, 17));
      await sleep(1);
      res.write(text.slice(17));
    } else {
      res.write(text);
    }
  }
  if (reply.truncate) {
    // Let the written frames reach the client before the connection breaks.
    await sleep(20);
    res.destroy();
  }
  else res.end();
}

/** Starts a scripted server on a free loopback port. */
export async function startScriptedLlm(script: Script): Promise<ScriptedLlm> {
  const requests: RecordedRequest[] = [];
  let clientClosed = 0;
  const changes = notifier();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (data: Buffer) => chunks.push(data));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest['body'];
        const recorded: RecordedRequest = { path: req.url, headers: req.headers, body };
        const index = requests.push(recorded) - 1;
        changes.notify();
        const reply = typeof script === 'function' ? script(recorded, index) : script[index];
        let gone = false;
        res.on('close', () => {
          if (!res.writableFinished) {
            gone = true;
            clientClosed++;
            changes.notify();
          }
        });
        if (!reply) {
          res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `the script has no reply #${index + 1}` } }));
        } else if ('status' in reply) {
          res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body ?? JSON.stringify({ error: { message: reply.error, type: 'scripted_error' } }));
        } else if ('streamError' in reply) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`data: ${JSON.stringify({ error: { message: reply.streamError, type: 'server_error' } })}\n\n`);
        } else {
          await stream(res, typeof body.model === 'string' ? body.model : 'scripted', reply, () => gone);
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get clientClosed() {
      return clientClosed;
    },
    changes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
