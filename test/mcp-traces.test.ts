/**
 * MCP requests carry their W3C trace context in `_meta` (`traceparent`, `tracestate`;
 * MCP 2026-07-28): a `do` so sent starts a run whose `invoke_agent` span is a child of
 * the span `_meta.traceparent` names, whatever the HTTP request's own trace; through the
 * stdio bridge (`org mcp`, needs `npm run build`) the context travels as the chat
 * request's `traceparent` header, so the run stays in the caller's trace. Real SDK v2
 * clients at both revisions (a blocking call, and a task at 2026-07-28), a real OTLP/HTTP
 * receiver; spans are exported when the server closes (the exporter flushes).
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PACKAGE_ROOT } from '../src/app.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { attributeOf, startOtlpReceiver, type OtlpSpan } from './helpers/otlp-receiver.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';

/** One caller's trace: a distinct trace id and span id per call, so each run is told apart. */
const caller = (n: number) => ({ traceId: `${'a'.repeat(31)}${n}`, spanId: `${'b'.repeat(15)}${n}` });
const traceparent = ({ traceId, spanId }: { traceId: string; spanId: string }) => `00-${traceId}-${spanId}-01`;

describe('MCP _meta.traceparent', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let t: TestInstance;
  let token: string;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const scripted = createScriptedRuntime([
      { type: 'tool_call', content: { tool: 'lookup_invoice', args: { id: 7 } } },
      { type: 'tool_result', content: { tool: 'lookup_invoice', result: { total: 12 } } },
      { type: 'complete', content: { summary: 'looked it up', artifacts: [] } },
    ]);
    t = await startInstance({ listen: true, config: { otlpTracesUrl: `${receiver.url}/v1/traces` }, deps: { runtime: () => scripted } });
    const owner = await t.createUser('owner@example.com');
    const structure = await t.createStructure(owner.token, 'exec-team');
    const minted = await t.server.inject({ method: 'POST', url: `/api/org/structures/${structure.id}/agents/exec-cfo/mcp-key`, headers: t.auth(owner.token), payload: { label: 'traced' } });
    expect(minted.statusCode).toBe(201);
    token = minted.json<{ token: string }>().token;
  });
  afterAll(async () => {
    await Promise.allSettled(closers.map((close) => close()));
    await receiver.close();
  });

  async function connect(era: 'modern' | 'legacy', tasks = false, fetch?: typeof globalThis.fetch) {
    const client = new Client(
      { name: 'traced-client', version: '1' },
      {
        ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {}),
        ...(tasks ? { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } : {}),
      },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.url), { requestInit: { headers: { authorization: `Bearer ${token}` } }, ...(fetch ? { fetch } : {}) }));
    closers.push(() => client.close());
    return client;
  }

  const runIdOf = (result: unknown) => (result as { structuredContent?: { run_id?: string } }).structuredContent?.run_id;

  it('parents each run’s invoke_agent span on the span _meta.traceparent names, at both revisions and as a task', async () => {
    const runs = new Map<string, { traceId: string; spanId: string }>();

    const modern = await connect('modern');
    const first = caller(1);
    const blocking = await modern.callTool({ name: 'do', arguments: { message: 'look up invoice 7' }, _meta: { traceparent: traceparent(first), tracestate: 'org=test' } });
    expect(blocking.isError).toBeFalsy();
    runs.set(runIdOf(blocking)!, first);

    const legacy = await connect('legacy');
    const second = caller(2);
    const older = await legacy.callTool({ name: 'do', arguments: { message: 'look up invoice 7 again' }, _meta: { traceparent: traceparent(second) } });
    expect(older.isError).toBeFalsy();
    runs.set(runIdOf(older)!, second);

    // The SDK v2 client has no task API yet: the task handle is read off the wire.
    const handles: { result?: { taskId?: string } }[] = [];
    const spy: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) {
        for (const line of (await response.clone().text()).split('\n')) {
          const json = line.startsWith('data: ') ? line.slice(6) : line.startsWith('{') ? line : '';
          if (json) handles.push(JSON.parse(json) as { result?: { taskId?: string } });
        }
      }
      return response;
    };
    const tasked = await connect('modern', true, spy);
    const third = caller(3);
    await tasked.callTool({ name: 'do', arguments: { message: 'look up invoice 8' }, _meta: { traceparent: traceparent(third) } }).catch(() => undefined);
    const task = { taskId: handles.find((message) => message.result?.taskId)!.result!.taskId! };
    runs.set(task.taskId, third);
    const TaskSchema = z.looseObject({ taskId: z.string(), status: z.string() });
    for (;;) {
      const state = await tasked.request({ method: 'tasks/get', params: { taskId: task.taskId } }, TaskSchema);
      if (state.status !== 'working') {
        expect(state.status).toBe('completed');
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }

    // Through the stdio bridge: the HTTP request continues the caller's span, the run is under that request.
    const bridge = new Client({ name: 'traced-bridge', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await bridge.connect(new StdioClientTransport({ command: process.execPath, args: [join(PACKAGE_ROOT, 'bin', 'org.js'), 'mcp', '--url', t.url, '--key', token], env: getDefaultEnvironment(), stderr: 'ignore' }));
    closers.push(() => bridge.close());
    const fourth = caller(4);
    const bridged = await bridge.callTool({ name: 'do', arguments: { message: 'look up invoice 10' }, _meta: { traceparent: traceparent(fourth) } });
    expect(bridged.isError).toBeFalsy();
    const bridgedRun = runIdOf(bridged)!;

    // A traceparent that does not parse is ignored: the run still gets its span, in a trace of its own.
    const malformed = await modern.callTool({ name: 'do', arguments: { message: 'look up invoice 9' }, _meta: { traceparent: 'not-a-traceparent' } });
    expect(malformed.isError).toBeFalsy();
    const malformedRun = runIdOf(malformed)!;

    await t.close(); // flushes the exporter
    const { spans, exported } = receiver;
    const runSpan = (runId: string) => spans.find((span) => span.name.startsWith('invoke_agent') && attributeOf(span, 'org.run_id') === runId);
    await exported.until(() => [...runs.keys(), malformedRun, bridgedRun].every((runId) => runSpan(runId) !== undefined), 'the run spans to be exported');

    for (const [runId, expected] of runs) {
      const span = runSpan(runId)!;
      expect(span.name).toBe('invoke_agent exec-cfo');
      expect(span.traceId).toBe(expected.traceId);
      expect(span.parentSpanId).toBe(expected.spanId);
      // The turn's tool call stays under the run, in the caller's trace.
      const tool = spans.find((candidate: OtlpSpan) => candidate.name === 'execute_tool lookup_invoice' && attributeOf(candidate, 'org.run_id') === runId);
      expect(tool).toMatchObject({ traceId: expected.traceId, parentSpanId: span.spanId });
    }
    const viaBridge = runSpan(bridgedRun)!;
    expect(viaBridge.traceId).toBe(fourth.traceId);
    // Its parent is the chat request's span (or a span inside it), which continues the caller's.
    const ancestors: string[] = [];
    for (let span: OtlpSpan | undefined = viaBridge; span?.parentSpanId; span = spans.find((candidate) => candidate.spanId === span!.parentSpanId)) ancestors.push(span.parentSpanId);
    expect(ancestors.at(-1)).toBe(fourth.spanId);
    expect(ancestors.length).toBeGreaterThan(1);

    const unparsed = runSpan(malformedRun)!;
    expect([...runs.values()].map((expected) => expected.traceId)).not.toContain(unparsed.traceId);
    expect(unparsed.traceId).toMatch(/^[0-9a-f]{32}$/);
  }, 120_000); // four clients and a spawned bridge process: a bound for a loaded machine, not a timing
});
