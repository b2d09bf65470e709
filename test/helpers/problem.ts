/** Assertions shared by HTTP tests: problem+json responses. */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

const MEMBERS = ['type', 'title', 'status', 'detail', 'code', 'errors', 'instance'];

/**
 * Asserts an RFC 9457 problem response with `status` and `code` that leaks no stack or
 * path, and has no members beyond the contract's (plus `extra`, e.g. `run_id`).
 */
export function expectProblem(response: LightMyRequestResponse, status: number, code: string, extra: string[] = []): Record<string, unknown> {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.json<Record<string, unknown>>();
  expect(body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
  for (const key of Object.keys(body)) expect([...MEMBERS, ...extra]).toContain(key);
  expect(response.body).not.toMatch(/\bat \S+:\d+|node_modules|\/src\/|\.ts\b|\bstack\b/);
  return body;
}
