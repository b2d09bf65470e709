/**
 * The OpenTelemetry side of tracing, imported only when traces are on (see index.ts):
 * a tracer provider with an OTLP/HTTP exporter configured by the standard `OTEL_*`
 * variables, W3C trace context, `@fastify/otel` for request spans, and the app
 * observers that turn runs, tool calls and searches into spans.
 */
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance } from 'fastify';
import type { TracedApp, Tracing, TracingOptions } from './index.js';
import { runTracer } from './runs.js';

/** Sets up the provider, instruments the server and observes the app. */
export async function setUpTracing(server: FastifyInstance, app: TracedApp, options: TracingOptions): Promise<Tracing> {
  const provider = new NodeTracerProvider({
    // OTEL_SERVICE_NAME is the standard way to rename the service; the exporter reads
    // OTEL_EXPORTER_OTLP_HEADERS and its timeouts from the environment itself.
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME?.trim() || 'org', 'service.version': options.version }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.url }))],
  });
  // The global API (context manager, W3C propagator) is how instrumentations find the provider.
  provider.register();
  const instrumentation = new FastifyOtelInstrumentation({ instrumentHooks: false });
  instrumentation.setTracerProvider(provider);
  await server.register(instrumentation.plugin());
  const tracer = provider.getTracer('org', options.version);
  const stopRuns = app.chat.observe(runTracer(tracer));
  const stopSearches = app.observeSearches((record) => {
    const end = performance.timeOrigin + performance.now();
    const span = tracer.startSpan('search_skills', {
      startTime: end - record.durationMs,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'search_skills',
        'org.search.limit': record.limit,
        'org.search.matches': record.matches,
        ...(record.structureId ? { 'org.structure_id': record.structureId } : {}),
      },
    });
    span.end(end);
  });
  return {
    async shutdown() {
      stopRuns();
      stopSearches();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
