/**
 * Behind a reverse proxy (`--trust-proxy`): the client address the limit of failed
 * authentications and the audit log see is the one the listed proxy forwards
 * in X-Forwarded-For; a proxy that is not listed (or a client talking directly) cannot
 * choose it. Real listening servers, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditPage } from '../src/core/schemas/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const LIMIT = 3;

/** A request from "behind the proxy" on the loopback connection, forwarding `client`. */
async function call(t: TestInstance, path: string, client: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { 'x-forwarded-for': client };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${t.url}${path}`, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
}

/** Makes the anonymous requests of one forwarded client until the limit; returns the statuses. */
async function anonymous(t: TestInstance, client: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await call(t, '/api/org/structures', client)).status);
  return statuses;
}

/** The address the audit log recorded for the structure created as `token` from `client`. */
async function auditedAddress(t: TestInstance, token: string, client: string): Promise<string | null | undefined> {
  const created = await call(t, '/api/org/structures', client, { method: 'POST', token, body: { name: 'Behind a proxy', template: 'exec-team' } });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const page = (await (await call(t, `/api/org/structures/${id}/audit?action=structure.create`, client, { token })).json()) as AuditPage;
  return page.entries[0]?.ip;
}

describe('--trust-proxy', () => {
  let trusting: TestInstance;
  let other: TestInstance;
  let owner: { token: string };
  let otherOwner: { token: string };

  beforeAll(async () => {
    // The test's requests come from loopback: the first instance trusts it as its proxy,
    // the second trusts only a proxy network the requests do not come from.
    trusting = await startInstance({ listen: true, config: { trustProxy: ['loopback'], authFailureLimit: LIMIT } });
    other = await startInstance({ listen: true, config: { trustProxy: ['10.0.0.0/8'], authFailureLimit: LIMIT } });
    owner = await trusting.createUser('owner@example.com');
    otherOwner = await other.createUser('owner@example.com');
  });
  afterAll(async () => {
    await trusting.close();
    await other.close();
  });

  it('records the forwarded client in the audit log only when the proxy is trusted', async () => {
    expect(await auditedAddress(trusting, owner.token, '203.0.113.7')).toBe('203.0.113.7');
    const direct = await auditedAddress(other, otherOwner.token, '203.0.113.7');
    expect(direct).not.toBe('203.0.113.7');
    expect(direct).toMatch(/127\.0\.0\.1|::1/);
  });

  it('gives each forwarded client its own failed-authentication window behind a trusted proxy', async () => {
    expect(await anonymous(trusting, '198.51.100.1', LIMIT + 1)).toEqual([...Array<number>(LIMIT).fill(401), 429]);
    // Another client behind the same proxy is not limited by the first one's requests.
    expect(await anonymous(trusting, '198.51.100.2', 1)).toEqual([401]);
  });

  it('keeps one bucket per connection address when the sender is not a trusted proxy', async () => {
    expect(await anonymous(other, '198.51.100.1', LIMIT)).toEqual(Array<number>(LIMIT).fill(401));
    // A new X-Forwarded-For does not buy a fresh bucket.
    expect(await anonymous(other, '198.51.100.2', 1)).toEqual([429]);
  });
});
