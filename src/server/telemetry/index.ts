/**
 * OpenTelemetry traces, on when the standard variables ask for them
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, read by the
 * configuration; off with `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`).
 * Nothing of OpenTelemetry is loaded otherwise: the SDK, the OTLP/HTTP exporter and `@fastify/otel` are imported on
 * demand. A span per request (by `@fastify/otel`, honouring an inbound `traceparent`),
 * and, after the GenAI semantic conventions, `invoke_agent` per run, `execute_tool` per
 * tool call and a span per skill search.
 */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app.js';

/** The services whose runs and searches become spans. */
export type TracedApp = Pick<App, 'chat' | 'observeSearches'>;

/** Tracing of one server. */
export interface Tracing {
  /** Exports what is pending and stops (the server's close calls it). */
  shutdown(): Promise<void>;
}

/** Options of {@link startTracing}. */
export interface TracingOptions {
  /** Reported as `service.version`. */
  version: string;
  /** The OTLP/HTTP traces endpoint (`OrgConfig.otlpTracesUrl`). */
  url: string;
}

/**
 * Starts tracing for `server` over `app` (call it before any route is registered, so
 * every route is instrumented). The SDK is imported here, on demand.
 */
export async function startTracing(server: FastifyInstance, app: TracedApp, options: TracingOptions): Promise<Tracing> {
  const { setUpTracing } = await import('./sdk.js');
  return setUpTracing(server, app, options);
}
