/**
 * OpenTelemetry traces against a real local OTLP/HTTP receiver: with a traces endpoint
 * configured, a request carrying `traceparent` gets a server span in that trace, the run
 * it starts an `invoke_agent` span under it, each tool call an `execute_tool` span under
 * the run, each skill search a span; a node's container receives the run's
 * `traceparent`. Spans are exported when the server closes (the exporter flushes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { attributeOf as attribute, listen, startOtlpReceiver, type OtlpSpan } from './helpers/otlp-receiver.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

describe('OpenTelemetry traces', () => {
  const containerHeaders: Record<string, string | string[] | undefined>[] = [];
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let container: Awaited<ReturnType<typeof listen>>;
  let t: TestInstance;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    container = await listen((_body, headers, respond) => {
      containerHeaders.push(headers);
      respond(200, 'text/event-stream', `data: ${JSON.stringify({ type: 'complete', content: { summary: 'container did it', artifacts: [] } })}\n\n`);
    });
    const scripted = createScriptedRuntime([
      { type: 'tool_call', content: { tool: 'lookup_invoice', args: { id: 7 } } },
      { type: 'tool_result', content: { tool: 'lookup_invoice', result: { total: 12 } } },
      { type: 'complete', content: { summary: 'looked it up', artifacts: [] } },
    ]);
    t = await startInstance({
      listen: true,
      config: { otlpTracesUrl: `${receiver.url}/v1/traces` },
      deps: { runtime: (node) => (node.container_url ? undefined : scripted) },
    });
  });
  afterAll(async () => {
    await receiver.close();
    await container.close();
  });

  it('exports request, run, tool and search spans in the inbound trace, and hands the trace to containers', async () => {
    const owner = await t.createUser('owner@example.com');
    const structure = await t.createStructure(owner.token, 'exec-team');
    const patched = await t.server.inject({
      method: 'PATCH',
      url: `/api/org/structures/${structure.id}/agents/exec-cto`,
      headers: t.auth(owner.token),
      payload: { container_url: container.url },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const traceparent = `00-${TRACE_ID}-${PARENT_SPAN}-01`;
    const send = (roleId: string) =>
      fetch(`${t.url}/api/org/chat/message/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', traceparent },
        body: JSON.stringify({ structure_id: structure.id, role_id: roleId, message: 'look up invoice 7' }),
      });
    const local = await send('exec-cfo');
    expect(local.status).toBe(200);
    const remote = await send('exec-cto');
    expect(remote.status).toBe(200);
    expect(((await remote.json()) as { summary: string }).summary).toBe('container did it');
    const search = await fetch(`${t.url}/api/org/knowledge/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', traceparent },
      body: JSON.stringify({ structure_id: structure.id, query: 'invoices' }),
    });
    expect(search.status).toBe(200);

    await t.close(); // flushes the exporter
    const { spans, exported } = receiver;
    await exported.until(() => spans.some((span) => span.name.startsWith('invoke_agent')), 'spans to be exported');

    const inTrace = spans.filter((span) => span.traceId === TRACE_ID);
    const byId = new Map(inTrace.map((span) => [span.spanId, span]));
    const ancestors = (span: OtlpSpan): string[] => {
      const chain: string[] = [];
      let current: OtlpSpan | undefined = span;
      while (current?.parentSpanId) {
        chain.push(current.parentSpanId);
        current = byId.get(current.parentSpanId);
      }
      return chain;
    };
    // The request spans continue the caller's trace.
    const requestSpans = inTrace.filter((span) => span.parentSpanId === PARENT_SPAN);
    expect(requestSpans.length).toBeGreaterThanOrEqual(3);

    const runs = inTrace.filter((span) => span.name.startsWith('invoke_agent'));
    expect(runs.map((span) => span.name).sort()).toEqual(['invoke_agent exec-cfo', 'invoke_agent exec-cto']);
    for (const run of runs) {
      expect(attribute(run, 'gen_ai.operation.name')).toBe('invoke_agent');
      expect(ancestors(run)).toContain(PARENT_SPAN);
    }
    const cfoRun = runs.find((span) => span.name === 'invoke_agent exec-cfo')!;
    const tool = inTrace.find((span) => span.name === 'execute_tool lookup_invoice');
    expect(tool?.parentSpanId).toBe(cfoRun.spanId);
    expect(attribute(tool!, 'gen_ai.tool.name')).toBe('lookup_invoice');
    // The chat's skill lookup runs inside the run's span; the API search inside its request.
    const searches = inTrace.filter((span) => span.name === 'search_skills');
    expect(searches.some((span) => span.parentSpanId === cfoRun.spanId)).toBe(true);
    expect(searches.some((span) => ancestors(span).includes(PARENT_SPAN) && !runs.some((run) => ancestors(span).includes(run.spanId)))).toBe(true);

    // The container was called with the run's trace context.
    const ctoRun = runs.find((span) => span.name === 'invoke_agent exec-cto')!;
    expect(containerHeaders).toHaveLength(1);
    expect(containerHeaders[0]!.traceparent).toBe(`00-${TRACE_ID}-${ctoRun.spanId}-01`);
  });
});
