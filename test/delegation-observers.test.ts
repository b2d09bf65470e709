/**
 * What delegation leaves for operators (API.md §10, §9 operations): the webhooks
 * `run.completed` / `run.failed` of a delegated run carry `parent_run_id` and
 * `root_run_id` (and a root run's carry neither), Prometheus counts delegations by outcome
 * (a runaway chain stopped by the instance's `ORG_DELEGATION_DEPTH` among them),
 * and the OpenTelemetry span of a delegated run is a child of the delegating run's
 * `invoke_agent` span, in the same trace, and so is the delegation request of a container
 * agent that sends on the trace context of its turn (the example agent, a real process) —
 * against a real webhook receiver, `GET /metrics` and a real OTLP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { startAgentProcess, type AgentProcess } from './helpers/agent-process.js';
import { startChat, type ChatFixture } from './helpers/chat.js';
import { attributeOf as attribute, startOtlpReceiver, type OtlpSpan } from './helpers/otlp-receiver.js';
import { startReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

/** Delegates each line `delegate <role_id>: <task>`, then completes; a task that starts with "fail" fails. */
const delegating: AgentRuntime = {
  name: 'delegating',
  async run(turn, emit, tools) {
    for (const line of turn.message.split('\n')) {
      const asked = /^delegate ([a-z-]+): (.+)$/.exec(line);
      if (asked) await tools.delegate(asked[1]!, asked[2]!);
    }
    if (turn.message.startsWith('fail')) return emit({ type: 'error', content: { message: 'it failed' } });
    await emit({ type: 'complete', content: { summary: `did ${turn.message.split('\n')[0]}`, artifacts: [] } });
  },
};

describe('delegation in webhooks, metrics and traces', () => {
  let c: ChatFixture;
  let hooks: WebhookReceiver;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let agent: AgentProcess;
  let closed = false;

  beforeAll(async () => {
    hooks = await startReceiver();
    otlp = await startOtlpReceiver();
    agent = await startAgentProcess();
    // Nodes with a container URL run the container runtime; every other node delegates as told.
    c = await startChat({ config: { metrics: true, otlpTracesUrl: `${otlp.url}/v1/traces`, delegationDepth: 2 }, deps: { runtime: (node) => (node.container_url ? undefined : delegating) } });
    const container = await c.t.server.inject({ method: 'PATCH', url: `/api/org/structures/${c.structure.id}/agents/exec-coo`, headers: c.t.auth(c.owner.token), payload: { container_url: agent.url } });
    expect(container.statusCode, container.body).toBe(200);
    const created = await c.t.server.inject({
      method: 'POST',
      url: `/api/org/structures/${c.structure.id}/webhooks`,
      headers: c.t.auth(c.owner.token),
      payload: { url: hooks.url, events: ['run.completed', 'run.failed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
  });
  afterAll(async () => {
    if (!closed) await c.close();
    await hooks.close();
    await otlp.close();
    await agent?.stop();
  });

  it('webhooks of delegated runs carry parent_run_id and root_run_id; a root run\'s carry neither', async () => {
    const root = await c.sync('close\ndelegate exec-cfo: delegate exec-finance-controller: fail the close', { roleId: 'exec-ceo' });
    const rootId = root.json<{ run_id: string }>().run_id;
    await hooks.until(() => hooks.received.filter((delivery) => [rootId].includes(String(delivery.json.data.root_run_id ?? delivery.json.data.run_id))).length >= 3, 'three run webhooks');
    const ofRole = (roleId: string) => hooks.received.find((delivery) => delivery.json.data.role_id === roleId)!.json;
    const ceo = ofRole('exec-ceo');
    expect(ceo).toMatchObject({ type: 'run.completed', data: { run_id: rootId } });
    expect(ceo.data).not.toHaveProperty('parent_run_id');
    expect(ceo.data).not.toHaveProperty('root_run_id');
    const cfo = ofRole('exec-cfo');
    expect(cfo).toMatchObject({ type: 'run.completed', data: { parent_run_id: rootId, root_run_id: rootId } });
    expect(ofRole('exec-finance-controller')).toMatchObject({ type: 'run.failed', data: { parent_run_id: cfo.data.run_id, root_run_id: rootId, message: 'it failed' } });
  });

  it('Prometheus counts delegations, started and refused by the rule that refused them; a runaway chain stops at the instance\'s ORG_DELEGATION_DEPTH', async () => {
    await c.sync('delegate exec-ceo: myself\ndelegate exec-nobody: someone', { roleId: 'exec-ceo' });
    // A runaway chain: the instance's depth limit (2 here) refuses its third hop.
    const runaway = await c.sync('delegate exec-cto: delegate exec-eng-lead: delegate exec-cmo: one hop too far', { roleId: 'exec-ceo' });
    expect(runaway.json<{ summary: string }>().summary).toMatch(/^did delegate exec-cto/);
    const engLead = (await c.history({ roleId: 'exec-eng-lead' })).find((message) => message.sender === 'agent')!;
    expect(engLead.events).toContainEqual(
      expect.objectContaining({ type: 'tool_result', content: { tool: 'delegate', result: expect.objectContaining({ run_id: null, status: 'error', summary: expect.stringMatching(/3 hops below the root run .*the most is 2 \(ORG_DELEGATION_DEPTH\)/) }) } }),
    );
    expect(await c.history({ roleId: 'exec-cmo' })).toEqual([]);
    const text = await (await fetch(c.url('/metrics'))).text();
    expect(text).toMatch(/^org_delegations_total\{outcome="started"\} 4$/m);
    expect(text).toMatch(/^org_delegations_total\{outcome="self"\} 1$/m);
    expect(text).toMatch(/^org_delegations_total\{outcome="unknown_role"\} 1$/m);
    expect(text).toMatch(/^org_delegations_total\{outcome="depth"\} 1$/m);
  });

  it('the span of a delegated run is a child of the delegating run\'s invoke_agent span, and a container agent\'s delegation request joins its run\'s trace', async () => {
    const root = await c.sync('trace\ndelegate exec-cto: trace too', { roleId: 'exec-ceo' });
    const rootId = root.json<{ run_id: string }>().run_id;
    const viaAgent = await c.sync('delegate to exec-cmo: trace the agent', { roleId: 'exec-coo' });
    expect(viaAgent.json<{ summary: string }>().summary).toMatch(/^Delegated 1 task\(s\)\. exec-cmo did it/);
    const cooId = viaAgent.json<{ run_id: string }>().run_id;
    const delegatedBy = async (roleId: string, runId: string) => (await c.history({ roleId })).find((message) => message.delegated_by?.run_id === runId)!.run_id;
    const ctoId = await delegatedBy('exec-cto', rootId);
    const cmoId = await delegatedBy('exec-cmo', cooId);
    closed = true;
    await c.close(); // flushes the exporter
    await otlp.exported.until(() => [rootId, ctoId, cooId, cmoId].every((runId) => otlp.spans.some((span) => attribute(span, 'org.run_id') === runId && span.name.startsWith('invoke_agent'))), 'the run spans');
    const runSpan = (predicate: (span: OtlpSpan) => boolean) => otlp.spans.find((span) => span.name.startsWith('invoke_agent') && predicate(span))!;
    const parent = runSpan((span) => attribute(span, 'org.run_id') === rootId);
    const child = runSpan((span) => attribute(span, 'org.run_id') === ctoId);
    expect(child.traceId).toBe(parent.traceId);
    expect(child.parentSpanId).toBe(parent.spanId);

    // The example agent sent on its turn's traceparent: its request to org is a child of its run's span.
    const coo = runSpan((span) => attribute(span, 'org.run_id') === cooId);
    const request = otlp.spans.find((span) => span.name === 'request' && attribute(span, 'http.route') === '/api/org/chat/message/sync' && span.traceId === coo.traceId);
    expect(request?.parentSpanId).toBe(coo.spanId);
    const cmo = runSpan((span) => attribute(span, 'org.run_id') === cmoId);
    expect(cmo.traceId).toBe(coo.traceId);
    expect(cmo.parentSpanId).toBe(coo.spanId);
  });
});
