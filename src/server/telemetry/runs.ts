/**
 * Spans of chat runs after the OpenTelemetry GenAI semantic conventions: `invoke_agent
 * <role_id>` from a message's acceptance to its terminal event (a child of the request
 * that sent it, so an inbound `traceparent` reaches it, or of the trace context the
 * message carried, as an MCP request's `_meta.traceparent`), and `execute_tool <tool>` from
 * each `tool_call` to its `tool_result`. The run's span is current while its turn runs,
 * and its context goes to container runtimes as `traceparent`.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { decodeEvent, type RunObserver } from '../../core/chat/index.js';

/** A run observer that traces runs and their tool calls. */
export function runTracer(tracer: Tracer): RunObserver {
  const runs = new Map<string, { span: Span; context: Context; tools: Map<string, Span[]> }>();
  return {
    queued(run, carried) {
      // Trace context carried with the message (MCP `_meta`) names the caller's span more
      // precisely than the transport's request does; one that does not parse is ignored.
      const parent = carried ? propagation.extract(context.active(), carried) : context.active();
      const span = tracer.startSpan(`invoke_agent ${run.roleId}`, {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': run.nodeId,
          'gen_ai.agent.name': run.roleId,
          'gen_ai.conversation.id': run.id,
          'org.structure_id': run.structureId,
          'org.run_id': run.id,
        },
      }, parent);
      const tools = new Map<string, Span[]>();
      const runContext = trace.setSpan(parent, span);
      runs.set(run.id, { span, context: runContext, tools });
      // Only batches holding tool calls or results are decoded.
      const stop = run.subscribe(
        0,
        (encoded) => {
          const event = decodeEvent(encoded);
          if (event.type === 'tool_call') {
            const tool = tracer.startSpan(
              `execute_tool ${event.content.tool}`,
              { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': event.content.tool, 'org.run_id': run.id } },
              runContext,
            );
            tools.set(event.content.tool, [...(tools.get(event.content.tool) ?? []), tool]);
          } else if (event.type === 'tool_result') {
            const open = tools.get(event.content.tool);
            open?.shift()?.end();
          }
        },
        ['tool_call', 'tool_result'],
      );
      void run.done.then(stop);
    },
    started(run, runtime) {
      const entry = runs.get(run.id);
      entry?.span.setAttribute('org.runtime', runtime);
      entry?.span.addEvent('turn started');
    },
    finished(run, outcome) {
      const entry = runs.get(run.id);
      if (!entry) return;
      runs.delete(run.id);
      for (const open of entry.tools.values()) for (const span of open) span.end();
      entry.span.setAttribute('org.run.outcome', outcome);
      if (outcome !== 'complete') entry.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      entry.span.end();
    },
    within(run, fn) {
      const entry = runs.get(run.id);
      return entry ? context.with(entry.context, fn) : fn();
    },
    traceContext(run) {
      const entry = runs.get(run.id);
      if (!entry) return undefined;
      const carrier: Record<string, string> = {};
      propagation.inject(entry.context, carrier);
      return Object.keys(carrier).length > 0 ? carrier : undefined;
    },
  };
}
