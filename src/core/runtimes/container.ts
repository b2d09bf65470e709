/**
 * The container runtime (API.md §6 "Routing", docs/runtime-protocol.md): relays a turn
 * to an agent running behind `POST {container_url}/turn` and passes its SSE answer on
 * as chat events: the stream is read with eventsource-parser, each event's data with
 * `JSON.parse` and validated with `parseEvent`, and the events of each received chunk
 * are handed over together (`emit.batch`). Anything that goes wrong — a bad event, an unreachable or silent container, a stream without a
 * terminal event — ends the turn with an `error` saying what happened.
 */
import type { Dispatcher } from 'undici';
import { parseEvent } from '../chat/events.js';
import { isTerminal } from '../chat/types.js';
import { OrgError } from '../errors.js';
import type { DelegationAccess } from '../schemas/delegation.js';
import type { Log } from '../util/log.js';
import { formatChars, MAX_EVENT_CHARS, streamSse, type SseOutcome } from './sse.js';
import type { AgentRuntime, Emit, RelayedEvent, Turn, TurnTools } from './types.js';
import { PendingEmits, displayUrl, excerpt, formatDuration } from './util.js';

export interface ContainerRuntimeOptions {
  /** Time allowed to connect and receive the response headers, in ms (default 10 s). */
  connectTimeoutMs?: number;
  /** Time allowed without any byte of the answer, keepalive comments included, in ms (default 120 s). */
  idleTimeoutMs?: number;
  /**
   * How many bytes of relayed events (their JSON as received) may be waiting to be
   * recorded before reading pauses (default 8 MiB). Bounds memory when a container is
   * faster than the history, by bytes rather than events, so that large events are
   * bounded as well as small ones; it is large enough that a stream of small events is
   * not stopped by one slower write.
   */
  maxPendingBytes?: number;
  /**
   * Largest single event read from the container, in characters of its `data` lines
   * (default 1 MiB, {@link MAX_EVENT_CHARS}): a larger one ends the turn with an `error`
   * naming the limit, and the request is closed.
   */
  maxEventChars?: number;
  /** The undici dispatcher: the egress gate's (default: undici's global one, which checks nothing). */
  dispatcher?: Dispatcher;
  /** Where the start of a container's error answer goes, for the operator (it is never shown to users). */
  log?: Log;
}

const DEFAULTS = { connectTimeoutMs: 10_000, idleTimeoutMs: 120_000, maxPendingBytes: 8 * 1024 * 1024, maxEventChars: MAX_EVENT_CHARS };

/** `{container_url}/turn`, validated. */
function turnEndpoint(containerUrl: string): URL {
  let base: URL;
  try {
    base = new URL(containerUrl);
  } catch {
    throw new OrgError('invalid_request', `container_url ${JSON.stringify(containerUrl)} is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new OrgError('invalid_request', `container_url must be http or https, not ${base.protocol}`);
  }
  const endpoint = new URL(base);
  endpoint.pathname = `${base.pathname.replace(/\/+$/, '')}/turn`;
  return endpoint;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new OrgError('invalid_request', `${name} must be a positive number of milliseconds`);
  return value;
}

/** The `error` message for a stream that ended without a terminal event. */
function failureMessage(outcome: SseOutcome, where: string, options: typeof DEFAULTS): string {
  switch (outcome.kind) {
    case 'unreachable':
      return `container at ${where} is unreachable (${outcome.detail})`;
    case 'connect-timeout':
      return `container at ${where} did not answer within ${formatDuration(options.connectTimeoutMs)}`;
    case 'idle-timeout':
      return `container at ${where} sent nothing for ${formatDuration(options.idleTimeoutMs)}`;
    case 'lost':
      return `lost the connection to the container at ${where} mid-stream (${outcome.detail})`;
    case 'status':
      // The answer's body stays out of the chat: it could be anything the address serves.
      return `container at ${where} answered HTTP ${outcome.status}`;
    case 'content-type':
      return `container at ${where} answered with content type ${JSON.stringify(outcome.contentType)} instead of text/event-stream`;
    case 'too-large':
      return `container at ${where} sent an event larger than ${formatChars(outcome.limit)}, the limit of one event; the turn was ended there`;
    case 'ended':
    case 'stopped':
    case 'aborted':
      return 'container closed the stream before a complete or error event';
  }
}

/**
 * Creates the runtime of one container. The engine's router calls it with the node's
 * `container_url`; it is cheap (no connection is opened until a turn runs), so a
 * runtime per turn is fine. Throws `invalid_request` for a URL that is not http(s).
 *
 * @example
 * const runtime = createContainerRuntime('http://127.0.0.1:8700', { idleTimeoutMs: 60_000 });
 */
export function createContainerRuntime(containerUrl: string, options: ContainerRuntimeOptions = {}): AgentRuntime {
  const endpoint = turnEndpoint(containerUrl);
  const where = displayUrl(new URL(containerUrl));
  const settings = {
    connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs),
    idleTimeoutMs: positive('idleTimeoutMs', options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs),
    maxPendingBytes: Math.max(1, options.maxPendingBytes ?? DEFAULTS.maxPendingBytes),
    maxEventChars: Math.max(1, options.maxEventChars ?? DEFAULTS.maxEventChars),
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
  };
  if (endpoint.username || endpoint.password) {
    // undici does not send URL credentials itself; keep them out of the URL and the messages.
    const user = decodeURIComponent(endpoint.username);
    const password = decodeURIComponent(endpoint.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    endpoint.username = '';
    endpoint.password = '';
  }

  return {
    name: 'container',
    async run(turn: Turn, emit: Emit, tools: TurnTools, signal: AbortSignal) {
      // The run-scoped bearer the agent delegates with (API.md §10), ended with the run.
      const delegation = await tools.delegationAccess?.();
      const pending = new PendingEmits(emit);
      let terminal = false;
      let invalid: string | undefined;
      // The events of the chunk being parsed, handed over together once it is parsed.
      let chunk: RelayedEvent[] = [];
      const handOver = () => {
        if (chunk.length === 0) return;
        pending.pushBatch(chunk);
        chunk = [];
      };
      const outcome = await streamSse(
        {
          url: endpoint,
          headers: { ...headers, ...turn.trace_context, 'x-org-run-id': turn.run_id },
          body: JSON.stringify(turnBody(turn, delegation)),
          signal,
          connectTimeoutMs: settings.connectTimeoutMs,
          idleTimeoutMs: settings.idleTimeoutMs,
          maxEventChars: settings.maxEventChars,
          ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
        },
        {
          onMessage(message) {
            let value: unknown;
            try {
              value = JSON.parse(message.data);
            } catch {
              invalid = `data is not JSON: ${JSON.stringify(excerpt(message.data, 80))}`;
              return true;
            }
            const parsed = parseEvent(value);
            if (!parsed.ok) {
              invalid = parsed.message;
              return true;
            }
            chunk.push({ event: parsed.event, raw: message.data, parsed: value });
            if (isTerminal(parsed.event)) {
              terminal = true;
              return true;
            }
            return false;
          },
          afterChunk: () => {
            handOver();
            return pending.bytes >= settings.maxPendingBytes ? pending.drainTo(settings.maxPendingBytes / 2) : undefined;
          },
        },
      );
      // What the last chunk held when reading stopped (a terminal or invalid event, the end).
      handOver();
      await pending.flush();
      if (terminal || signal.aborted || outcome.kind === 'aborted') return;
      if (outcome.kind === 'status') {
        options.log?.('warn', 'container: answered an error status instead of an event stream', { url: where, status: outcome.status, body: excerpt(outcome.body, 300), run_id: turn.run_id });
      }
      const message = invalid !== undefined ? `container sent an invalid event: ${invalid}` : failureMessage(outcome, where, settings);
      await emit({ type: 'error', content: { message } });
    },
  };
}

/** The turn as sent in the body, with the delegation credentials: its trace context travels as headers. */
function turnBody(turn: Turn, delegation: DelegationAccess | undefined): Omit<Turn, 'trace_context'> & { delegation?: DelegationAccess } {
  const { trace_context: _trace, ...body } = turn;
  return delegation ? { ...body, delegation } : body;
}
