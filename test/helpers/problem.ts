/** Assertions shared by HTTP tests: problem+json responses. */
import { expect } from 'vitest';

/** An HTTP answer as the assertions read it: Fastify's `inject` answers, and {@link fetchAnswer}'s. */
export interface HttpAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json<T = unknown>(): T;
}

/** Sends one request to a listening server and reads its whole answer. */
export async function fetchAnswer(base: string, request: { method: string; url: string; headers?: Record<string, string>; payload?: unknown }): Promise<HttpAnswer> {
  const response = await fetch(`${base}${request.url}`, {
    method: request.method,
    headers: { ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
    ...(request.payload === undefined ? {} : { body: JSON.stringify(request.payload) }),
  });
  const body = await response.text();
  return { statusCode: response.status, headers: Object.fromEntries(response.headers), body, json: <T,>() => JSON.parse(body) as T };
}

const MEMBERS = ['type', 'title', 'status', 'detail', 'code', 'errors', 'instance'];

/**
 * Asserts an RFC 9457 problem response with `status` and `code` that leaks no stack or
 * path, and has no members beyond the contract's (plus `extra`, e.g. `run_id`).
 */
export function expectProblem(response: HttpAnswer, status: number, code: string, extra: string[] = []): Record<string, unknown> {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.json<Record<string, unknown>>();
  expect(body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
  for (const key of Object.keys(body)) expect([...MEMBERS, ...extra]).toContain(key);
  expect(response.body).not.toMatch(/\bat \S+:\d+|node_modules|\/src\/|\.ts\b|\bstack\b/);
  return body;
}
