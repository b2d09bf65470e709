/**
 * The W3C trace context an MCP request carries in `_meta` (`traceparent`, `tracestate`;
 * SEP-414, MCP 2026-07-28), handed to the turn a `do` starts so the run's span joins the
 * caller's trace. Values are passed on as given: the tracer's propagator validates them
 * and ignores a malformed one.
 */
import { TRACEPARENT_META_KEY, TRACESTATE_META_KEY } from '@modelcontextprotocol/server';
import type { TraceCarrier } from '../core/chat/index.js';

/** The trace context of a request's `_meta`, or undefined when it names none. */
export function traceContextOf(meta: unknown): TraceCarrier | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const fields = meta as Record<string, unknown>;
  const traceparent = fields[TRACEPARENT_META_KEY];
  if (typeof traceparent !== 'string' || traceparent.length === 0) return undefined;
  const tracestate = fields[TRACESTATE_META_KEY];
  return { traceparent, ...(typeof tracestate === 'string' && tracestate.length > 0 ? { tracestate } : {}) };
}
