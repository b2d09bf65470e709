/**
 * One call of a skill's `tool_url` (API.md §6.1): a JSON POST through the egress gate,
 * its answer read up to a bound, and the outcome as the `result` of a `tool_result`
 * event. Nothing here throws for the tool's sake: an unreachable, refused or failing tool
 * is a failed result the turn goes on with.
 */
import type { Dispatcher } from 'undici';
import { egressRefusalOf } from '../egress/gate.js';
import { refusalMessage } from '../egress/policy.js';
import { loadUndici } from '../util/undici.js';

/**
 * The most bytes of a tool's answer org reads (256 KiB). The answer becomes an event that
 * is stored with the run, sent to every follower and replayed with the history: a
 * step's result needs far less, and an unbounded read let one answer of 150 MB take 2 GB
 * of memory. The rest is not downloaded; the result says it was cut.
 */
export const TOOL_ANSWER_LIMIT = 256 * 1024;

/** What a tool call gives the `tool_result` event. */
export type ToolResult =
  /** The tool answered: its status and body (JSON when it parses, else text). */
  | { ok: boolean; status: number; body: unknown; truncated?: true; limit_bytes?: number }
  /** No answer: why (refused by the egress policy, unreachable, timed out). */
  | { ok: false; error: string; refused?: true };

/** Options of one call. */
export interface ToolCallOptions {
  /** Time allowed for the answer (headers and body), in ms. */
  timeoutMs: number;
  /** The turn's signal: an abort ends the call and is rethrown. */
  signal: AbortSignal;
  /** The egress gate's dispatcher (default: undici's global one, which checks nothing). */
  dispatcher?: () => Promise<Dispatcher>;
  /** Bytes read at most (default {@link TOOL_ANSWER_LIMIT}). */
  limitBytes?: number;
}

/** Reads at most `limit` bytes of `body`; the rest is not downloaded (the stream is destroyed). */
async function readBounded(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = limit - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size += room;
      body.destroy();
      return { bytes: Buffer.concat(chunks, size), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks, size), truncated: false };
}

/**
 * POSTs `payload` as JSON to `url` and reads the answer (at most `limitBytes`).
 *
 * @example
 * const result = await callTool('https://tools.example.com/crm', { message, step }, { timeoutMs: 10_000, signal });
 */
export async function callTool(url: string, payload: unknown, options: ToolCallOptions): Promise<ToolResult> {
  const { request } = await loadUndici();
  const limit = options.limitBytes ?? TOOL_ANSWER_LIMIT;
  try {
    const dispatcher = await options.dispatcher?.();
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/plain' },
      body: JSON.stringify(payload),
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      ...(dispatcher ? { dispatcher } : {}),
    });
    const { bytes, truncated } = await readBounded(response.body, limit);
    // A cut answer may end inside a character: the streaming decoder keeps its bytes back.
    const text = new TextDecoder().decode(bytes, { stream: truncated });
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    if (truncated) return { ok, status: response.statusCode, body: text, truncated: true, limit_bytes: limit };
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // A plain-text answer is kept as text.
    }
    return { ok, status: response.statusCode, body };
  } catch (error) {
    if (options.signal.aborted) throw error;
    const refused = egressRefusalOf(error);
    if (refused) return { ok: false, error: refusalMessage(`tool_url ${originOf(url)}`, refused.refusal, refused.host), refused: true };
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
