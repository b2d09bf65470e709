/** Assertions shared by HTTP tests: problem+json responses. */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** Asserts an RFC 9457 problem response with `status` and `code`, leaking no stack or path. */
export function expectProblem(response: LightMyRequestResponse, status: number, code: string): Record<string, unknown> {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.json<Record<string, unknown>>();
  expect(body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
  expect(response.body).not.toMatch(/\bat \S+:\d+|node_modules|\/src\/|\.ts\b/);
  return body;
}
