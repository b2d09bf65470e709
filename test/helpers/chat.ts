/**
 * Fixtures of the chat tests: a listening instance with a user who owns an exec-team
 * structure, shortcuts for the chat endpoints, and runtimes made for tests (one that
 * picks a runtime by the first word of the message, one that counts what it does).
 */
import type { LightMyRequestResponse } from 'fastify';
import { Agent } from 'undici';
import { expect } from 'vitest';
import type { HistoryMessage } from '../../src/core/chat/types.js';
import type { AgentRuntime, Emit } from '../../src/core/runtimes/types.js';
import { startInstance, type TestInstance, type TestInstanceOptions } from './instance.js';
import { notifier, type Notifier } from './notifier.js';
import { eventually, open, type OpenOptions, type SseResponse } from './sse.js';

/** A structure as the tests use it. */
export interface Structure {
  id: string;
  name: string;
  agents: { id: string; role_id: string; label: string; parent_id: string | null; state: string; container_url: string | null }[];
}

/** A listening instance with an owner and a structure. */
export interface ChatFixture {
  t: TestInstance;
  owner: { token: string; id: string };
  structure: Structure;
  /** A leaf-ish node (the CFO of exec-team) and another node (the CTO). */
  roleId: string;
  otherRoleId: string;
  /** Absolute URL of a path. */
  url(path: string): string;
  /** Any request over real HTTP, through the fixture's own connection pool. */
  open(path: string, options?: OpenOptions): Promise<SseResponse>;
  /** POST /api/org/chat/message over real HTTP. */
  send(message: string, options?: SendOptions): Promise<SseResponse>;
  /** POST /api/org/chat/message/sync (inject). */
  sync(message: string, options?: SendOptions): Promise<LightMyRequestResponse>;
  /** GET /api/org/chat/runs/{id}/events over real HTTP. */
  resume(runId: string, lastEventId?: string, token?: string): Promise<SseResponse>;
  /** GET /api/org/chat/history (inject); fails unless 200. */
  history(query?: { roleId?: string; limit?: number; before?: string; token?: string }): Promise<HistoryMessage[]>;
  /** The agent message of a run in the node's history. */
  agentMessage(runId: string, roleId?: string): Promise<HistoryMessage | undefined>;
  /** Waits until the run's agent message is no longer running; returns it. */
  settled(runId: string, roleId?: string): Promise<HistoryMessage>;
  close(): Promise<void>;
}

/** Options of a chat request. */
export interface SendOptions {
  roleId?: string;
  structureId?: string;
  token?: string;
  attachments?: { name: string; content_base64: string; content_type?: string }[];
  body?: unknown;
}

/** Starts a listening instance, a user and an exec-team structure owned by the user. */
export async function startChat(options: TestInstanceOptions = {}): Promise<ChatFixture> {
  const t = await startInstance({ listen: true, ...options });
  const owner = await t.createUser(`owner-${Math.random().toString(36).slice(2, 8)}@example.com`);
  const structure = (await t.createStructure(owner.token, 'exec-team', 'Acme')) as unknown as Structure;
  const roleId = 'exec-cfo';
  const otherRoleId = 'exec-cto';
  const url = (path: string) => `${t.url}${path}`;
  // An own pool, closed before the server: a response whose body the client has read in
  // full may still be finishing on the server when it closes (a streamed file with a
  // content-length), and the server would then wait for that keep-alive connection.
  const dispatcher = new Agent();
  const request = (path: string, options: OpenOptions = {}) => open(url(path), { dispatcher, ...options });
  const bodyOf = (message: string, options: SendOptions) =>
    options.body ?? {
      structure_id: options.structureId ?? structure.id,
      role_id: options.roleId ?? roleId,
      message,
      ...(options.attachments ? { attachments: options.attachments } : {}),
    };
  const fixture: ChatFixture = {
    t,
    owner,
    structure,
    roleId,
    otherRoleId,
    url,
    open: request,
    send: (message, options = {}) => request('/api/org/chat/message', { method: 'POST', token: options.token ?? owner.token, body: bodyOf(message, options) }),
    sync: (message, options = {}) =>
      t.server.inject({ method: 'POST', url: '/api/org/chat/message/sync', headers: t.auth(options.token ?? owner.token), payload: bodyOf(message, options) as object }),
    resume(runId, lastEventId, token) {
      const options: OpenOptions = { token: token ?? owner.token };
      if (lastEventId !== undefined) options.headers = { 'last-event-id': lastEventId };
      return request(`/api/org/chat/runs/${runId}/events`, options);
    },
    async history(query = {}) {
      const search = new URLSearchParams({ structure_id: structure.id, role_id: query.roleId ?? roleId });
      if (query.limit !== undefined) search.set('limit', String(query.limit));
      if (query.before !== undefined) search.set('before', query.before);
      const response = await t.server.inject({ method: 'GET', url: `/api/org/chat/history?${search.toString()}`, headers: t.auth(query.token ?? owner.token) });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<HistoryMessage[]>();
    },
    async agentMessage(runId, role) {
      const messages = await fixture.history({ roleId: role ?? roleId, limit: 500 });
      return messages.find((message) => message.sender === 'agent' && message.run_id === runId);
    },
    async settled(runId, role) {
      let found: HistoryMessage | undefined;
      await eventually(async () => {
        found = await fixture.agentMessage(runId, role);
        return found !== undefined && found.status !== 'running';
      });
      return found!;
    },
    async close() {
      await dispatcher.close();
      await t.close();
    },
  };
  return fixture;
}

/** A runtime that hands each turn to the runtime named by the message's first word, else to `fallback`. */
export function dispatchRuntime(routes: Record<string, AgentRuntime>, fallback: AgentRuntime): AgentRuntime {
  return {
    name: 'dispatch',
    run(turn, emit, tools, signal) {
      const word = turn.message.trim().split(/\s+/)[0] ?? '';
      return (routes[word] ?? fallback).run(turn, emit, tools, signal);
    },
  };
}

/** A runtime wrapper that counts emits and knows whether a turn is still inside `run`. */
export interface Probe extends AgentRuntime {
  emits: number;
  running: number;
  /** Emits attempted after the turn's signal aborted. */
  emitsAfterAbort: number;
  log: string[];
  /** Notified on every emit, start and end of a turn. */
  changes: Notifier;
}

/** Wraps a runtime in a probe. */
export function probe(inner: AgentRuntime): Probe {
  const self: Probe = {
    name: inner.name,
    emits: 0,
    running: 0,
    emitsAfterAbort: 0,
    log: [],
    changes: notifier(),
    async run(turn, emit, tools, signal) {
      self.running++;
      self.log.push(`start ${turn.message}`);
      self.changes.notify();
      const counted: Emit = (event) => {
        self.emits++;
        if (signal.aborted) self.emitsAfterAbort++;
        self.changes.notify();
        return emit(event);
      };
      try {
        await inner.run(turn, counted, tools, signal);
      } finally {
        self.running--;
        self.log.push(`end ${turn.message}`);
        self.changes.notify();
      }
    },
  };
  return self;
}

/** Asserts a problem-details answer (before any stream) and returns its body. */
export async function expectProblem(response: SseResponse, status: number, code: string): Promise<Record<string, unknown>> {
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(String(response.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(response.headers['x-org-run-id']).toBeUndefined();
  expect(body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
  return body;
}

/** Events of a run without their timestamps (to compare two runs). */
export function withoutTimestamps(events: { type: string; content: unknown }[]): { type: string; content: unknown }[] {
  return events.map(({ type, content }) => ({ type, content }));
}
