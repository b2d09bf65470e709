/**
 * The LLM runtime (API.md §6 "Routing"): runs a turn against any OpenAI-compatible
 * chat-completions server (`ORG_LLM_URL`, `ORG_LLM_MODEL`, `ORG_LLM_API_KEY`) with
 * streaming and tools. Text deltas become `text` events; each tool call becomes a
 * `tool_call`/`tool_result` pair (plus `decision`, `milestone` or `skill_learned` for
 * the tools that mean one); the loop goes on until the model answers without tools.
 */
import type { Dispatcher } from 'undici';
import type { EventInput } from '../chat/types.js';
import { OrgError } from '../errors.js';
import { DELEGATE_TOOL } from '../schemas/delegation.js';
import { LLM_TOOLS, executeTool } from './llm-tools.js';
import { systemPrompt, userPrompt } from './llm-prompt.js';
import { streamSse, type SseOutcome } from './sse.js';
import type { AgentRuntime, Emit, Turn, TurnTools } from './types.js';
import { PendingEmits, displayUrl, excerpt, formatDuration } from './util.js';

export interface LlmRuntimeOptions {
  /** Base URL of the API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  url: string;
  /** Model name sent with each request. */
  model: string;
  /** Bearer token; an empty string sends no `authorization` header (local servers). */
  apiKey: string;
  /** How many rounds of tool calls a turn may use (`ORG_LLM_MAX_ROUNDS`; default {@link DEFAULT_MAX_TOOL_ROUNDS}). */
  maxToolRounds?: number;
  /** Time allowed for a response to start, and between two chunks of it, in ms (default 120 s). */
  timeoutMs?: number;
  /** The undici dispatcher (default: undici's global one). */
  dispatcher?: Dispatcher;
}

/** A message of the chat-completions conversation. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What one streamed response said. */
interface Round {
  text: string;
  calls: ToolCall[];
  /** The choice's `finish_reason` (`stop`, `tool_calls`, `length`, `content_filter` …), when one was sent. */
  finishReason?: string;
}

/**
 * Rounds of tool calls a turn may use by default: real work (search, read a skill, write
 * two artifacts, record decisions, delegate, check) takes a few dozen; the bound is there
 * for a model that loops.
 */
export const DEFAULT_MAX_TOOL_ROUNDS = 32;

/** What the person is told when the provider stopped an answer before its end, by finish reason. */
const CUT_SHORT: Record<string, string> = {
  length: 'the answer was cut off: the model reached its output limit',
  content_filter: "the answer was stopped by the model provider's content filter",
};

/** Longest tool result handed back to the model. */
const TOOL_RESULT_LIMIT = 20_000;
const SUMMARY_LIMIT = 500;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The message of a provider error body (`{error: {message}}` and common variants). */
function providerMessage(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!isObject(value)) return undefined;
  const { error } = value;
  if (typeof error === 'string') return error;
  if (isObject(error) && typeof error.message === 'string') return error.message;
  if (typeof value.message === 'string') return value.message;
  if (typeof value.detail === 'string') return value.detail;
  return undefined;
}

function statusMessage(body: string): string {
  try {
    return providerMessage(JSON.parse(body)) ?? excerpt(body, 300);
  } catch {
    return excerpt(body, 300);
  }
}

function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/** Parses tool-call arguments: an object, or the reason it is not one. */
function parseArguments(raw: string): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } {
  if (!raw.trim()) return { ok: true, args: {} };
  try {
    const value: unknown = JSON.parse(raw);
    return isObject(value) ? { ok: true, args: value } : { ok: false, message: 'the arguments must be a JSON object' };
  } catch (error) {
    return { ok: false, message: `invalid JSON arguments: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Creates the LLM runtime. Throws `invalid_request` at once for a URL that is not
 * http(s), an empty model or a bad bound.
 *
 * @example
 * const runtime = createLlmRuntime({ url: 'http://127.0.0.1:11434/v1', model: 'llama3.1', apiKey: '' });
 */
export function createLlmRuntime(options: LlmRuntimeOptions): AgentRuntime {
  let base: URL;
  try {
    base = new URL(options.url);
  } catch {
    throw new OrgError('invalid_request', `the LLM URL ${JSON.stringify(options.url)} is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new OrgError('invalid_request', 'the LLM URL must be http or https');
  if (!options.model.trim()) throw new OrgError('invalid_request', 'the LLM model must not be empty');
  const maxToolRounds = options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
  if (!Number.isInteger(maxToolRounds) || maxToolRounds < 0) throw new OrgError('invalid_request', 'maxToolRounds must be a whole number ≥ 0');
  const timeoutMs = options.timeoutMs ?? 120_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new OrgError('invalid_request', 'timeoutMs must be a positive number of milliseconds');

  const endpoint = new URL(base);
  endpoint.pathname = `${base.pathname.replace(/\/+$/, '')}/chat/completions`;
  const where = displayUrl(base);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  /** Never let the key reach an event, whatever a provider echoes back. */
  const redact = (text: string): string => (options.apiKey.length >= 4 ? text.split(options.apiKey).join('[redacted]') : text);

  const failure = (outcome: SseOutcome): string => {
    switch (outcome.kind) {
      case 'status': {
        const message = statusMessage(outcome.body);
        return `the model provider answered HTTP ${outcome.status}${message ? `: ${message}` : ''}`;
      }
      case 'unreachable':
        return `the model provider at ${where} is unreachable (${outcome.detail})`;
      case 'connect-timeout':
        return `the model provider at ${where} did not answer within ${formatDuration(timeoutMs)}`;
      case 'idle-timeout':
        return `the model provider at ${where} sent nothing for ${formatDuration(timeoutMs)}`;
      case 'lost':
        return `lost the connection to the model provider at ${where} (${outcome.detail})`;
      case 'content-type':
        return `the model provider answered with content type ${JSON.stringify(outcome.contentType)} instead of a stream`;
      case 'ended':
      case 'stopped':
      case 'aborted':
        return 'the model provider closed the stream before the response was finished';
    }
  };

  /** Streams one completion; relays text as it comes. Returns the round, or an error message. */
  async function complete(messages: ChatMessage[], pending: PendingEmits, signal: AbortSignal): Promise<Round | { error: string }> {
    let text = '';
    let reasoning = '';
    const calls = new Map<number, ToolCall>();
    let finished: string | undefined;
    let done = false;
    let problem: string | undefined;
    const flushReasoning = () => {
      if (reasoning.trim()) pending.push({ type: 'thought', content: reasoning.trim() });
      reasoning = '';
    };
    const outcome = await streamSse(
      {
        url: endpoint,
        headers,
        body: JSON.stringify({ model: options.model, messages, tools: LLM_TOOLS, tool_choice: 'auto', stream: true }),
        signal,
        connectTimeoutMs: timeoutMs,
        idleTimeoutMs: timeoutMs,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      },
      {
        onMessage(message) {
          if (message.data.trim() === '[DONE]') {
            done = true;
            return true;
          }
          let chunk: unknown;
          try {
            chunk = JSON.parse(message.data);
          } catch {
            problem = `the model provider sent a chunk that is not JSON: ${JSON.stringify(excerpt(message.data, 80))}`;
            return true;
          }
          if (isObject(chunk) && chunk.error !== undefined && chunk.error !== null) {
            problem = `the model provider reported an error: ${providerMessage(chunk) ?? 'unknown error'}`;
            return true;
          }
          const choice: unknown = isObject(chunk) && Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
          if (!isObject(choice)) return false; // e.g. a usage-only chunk
          const delta = isObject(choice.delta) ? choice.delta : {};
          const thinking = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : typeof delta.reasoning === 'string' ? delta.reasoning : '';
          if (thinking) reasoning += thinking;
          if (typeof delta.content === 'string' && delta.content) {
            flushReasoning();
            text += delta.content;
            pending.push({ type: 'text', content: delta.content });
          }
          if (Array.isArray(delta.tool_calls)) {
            flushReasoning();
            for (const part of delta.tool_calls as unknown[]) {
              if (!isObject(part)) continue;
              const index = typeof part.index === 'number' ? part.index : 0;
              const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
              calls.set(index, call);
              if (typeof part.id === 'string' && part.id) call.id = part.id;
              const fn = isObject(part.function) ? part.function : {};
              if (typeof fn.name === 'string') call.name += fn.name;
              if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
            }
          }
          if (typeof choice.finish_reason === 'string' && choice.finish_reason) finished = choice.finish_reason;
          return false;
        },
      },
    );
    flushReasoning();
    if (problem) return { error: problem };
    if (outcome.kind === 'aborted') return { error: 'aborted' };
    if (!(done || (outcome.kind === 'ended' && finished))) return { error: failure(outcome) };
    const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
    return { text, calls: ordered, ...(finished ? { finishReason: finished } : {}) };
  }

  return {
    name: 'llm',
    async run(turn: Turn, emit: Emit, tools: TurnTools, signal: AbortSignal) {
      const pending = new PendingEmits(emit);
      const fail = async (message: string) => {
        await pending.flush();
        if (!signal.aborted) await emit({ type: 'error', content: { message: redact(message) } });
      };
      const messages: ChatMessage[] = [
        { role: 'system', content: systemPrompt(turn) },
        { role: 'user', content: userPrompt(turn) },
      ];
      const artifacts: string[] = [];
      const invoked = turn.explicit_skill ? turn.skills[0]?.slug : undefined;
      const context = { tools, artifacts, emit: (event: EventInput) => emit(event), following: { ...(invoked ? { invoked } : {}), read: new Set<string>() } };
      for (let rounds = 0; ; rounds++) {
        const round = await complete(messages, pending, signal);
        if (signal.aborted) return pending.flush();
        if ('error' in round) return fail(round.error);
        if (round.calls.length === 0) {
          await pending.flush();
          const cut = round.finishReason ? CUT_SHORT[round.finishReason] : undefined;
          if (cut) await emit({ type: 'text', content: `\n\n(${cut}.)` });
          const answer = round.text.trim() ? clip(round.text.trim(), SUMMARY_LIMIT) : 'done';
          const summary = cut ? `${clip(answer, SUMMARY_LIMIT - cut.length - 4)} (${cut})` : answer;
          return emit({ type: 'complete', content: { summary, artifacts } });
        }
        if (rounds >= maxToolRounds) return fail(`the model used more than ${maxToolRounds} rounds of tool calls in one turn (ORG_LLM_MAX_ROUNDS sets the limit)`);
        await pending.flush();
        messages.push({
          role: 'assistant',
          content: round.text || null,
          tool_calls: round.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
        });
        for (const call of round.calls) {
          const parsed = parseArguments(call.arguments);
          // A delegation is shown by the engine, with the delegated run's id (API.md §10).
          const shown = call.name !== DELEGATE_TOOL;
          if (shown) await emit({ type: 'tool_call', content: { tool: call.name, args: parsed.ok ? parsed.args : call.arguments } });
          const result = parsed.ok ? await executeTool(call.name, parsed.args, context) : shown ? { error: parsed.message } : { ...(await tools.delegate('', '')), error: parsed.message };
          if (signal.aborted) return;
          if (shown) await emit({ type: 'tool_result', content: { tool: call.name, result } });
          messages.push({ role: 'tool', tool_call_id: call.id, content: clip(JSON.stringify(result) ?? 'null', TOOL_RESULT_LIMIT) });
        }
      }
    },
  };
}
