/**
 * The per-token rate limit counted across instances (issue 14, item 6): two `org serve`
 * processes on one PostgreSQL database, ORG_RATE_LIMIT=10. Requests of one token split
 * between them reach the limit together; the next request is refused on either with 429
 * and Retry-After, while requests under another key still pass.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './support/database.js';
import { ensureBuilt, type ServeChild } from './helpers/child.js';
import { startMember, stopCluster } from './helpers/cluster.js';

const ADMIN = 'limit-admin-token-0123456789abcdef';
const LIMIT = 10;

async function get(base: string, path: string, token?: string) {
  const response = await request(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: (text ? JSON.parse(text) : {}) as { detail?: string } };
}

describe('the rate limit of two instances sharing PostgreSQL', () => {
  let database: TestDatabase;
  const dirs: string[] = [];
  const instances: ServeChild[] = [];

  beforeAll(async () => {
    ensureBuilt();
    database = await testDatabase();
    for (let i = 0; i < 2; i++) {
      await startMember({ instances, dirs }, database, { prefix: 'org-limit-', admin: ADMIN, env: { ORG_RATE_LIMIT: String(LIMIT) } });
    }
  }, 180_000);

  afterAll(() => stopCluster({ instances, database, dirs }));

  it('is reached by requests split across both, and then refused on either', async () => {
    const [a, b] = [instances[0]!, instances[1]!];
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await get(i % 2 === 0 ? a.url : b.url, '/api/org/structures', ADMIN)).status);
    expect(statuses).toEqual(Array.from({ length: LIMIT }, () => 200));
    for (const via of [a, b]) {
      const refused = await get(via.url, '/api/org/structures', ADMIN);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body.detail).toMatch(`rate limit of ${LIMIT} requests a minute`);
    }
    // Another key (no token: the client's address) has a count of its own.
    expect((await get(b.url, '/api/org/health')).status).toBe(200);
  });
});
