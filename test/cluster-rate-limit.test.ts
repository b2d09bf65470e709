/**
 * The per-token rate limit counted across instances (issue 14, item 6): two `org serve`
 * processes on one PostgreSQL database, ORG_RATE_LIMIT=10. Requests of one token split
 * between them reach the limit together; the next request is refused on either with 429
 * and Retry-After, while requests under another key still pass. Failed authentications
 * (issue 28, finding 9) are counted per address across both the same way
 * (ORG_AUTH_FAILURE_LIMIT=4), and a real token from that address is still served.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './support/database.js';
import { ensureBuilt, type ServeChild } from './helpers/child.js';
import { startMember, stopCluster } from './helpers/cluster.js';

const ADMIN = 'limit-admin-token-0123456789abcdef';
const LIMIT = 10;
const FAILURES = 4;

async function get(base: string, path: string, token?: string) {
  const response = await request(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: (text ? JSON.parse(text) : {}) as { detail?: string } };
}

describe('the rate limit of two instances sharing PostgreSQL', () => {
  let database: TestDatabase;
  const dirs: string[] = [];
  const instances: ServeChild[] = [];
  let token: string;

  beforeAll(async () => {
    ensureBuilt();
    database = await testDatabase();
    for (let i = 0; i < 2; i++) {
      await startMember({ instances, dirs }, database, { prefix: 'org-limit-', admin: ADMIN, env: { ORG_RATE_LIMIT: String(LIMIT), ORG_AUTH_FAILURE_LIMIT: String(FAILURES) } });
    }
    // A user whose token is used from the same address as the guesses (the administrator's first request).
    const created = await request(`${instances[0]!.url}/api/org/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'limited@example.com' }),
    });
    token = ((await created.body.json()) as { token: string }).token;
  }, 180_000);

  afterAll(() => stopCluster({ instances, database, dirs }));

  it('failed authentication is limited per address across both, and a real token from that address is still served', async () => {
    const [a, b] = [instances[0]!, instances[1]!];
    const statuses: number[] = [];
    for (let i = 0; i < FAILURES; i++) statuses.push((await get(i % 2 === 0 ? a.url : b.url, '/api/org/structures', `org_u_guess${i}guessguessguessguessguessguess`)).status);
    expect(statuses).toEqual(Array.from({ length: FAILURES }, () => 401));
    for (const via of [a, b]) {
      const refused = await get(via.url, '/api/org/structures', 'org_u_oneguessmoreoneguessmoreoneguessmore');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body.detail).toMatch(/too many requests with a missing, unknown or revoked token from this address/);
    }
    for (const via of [a, b]) expect((await get(via.url, '/api/org/structures', token)).status).toBe(200);
  });

  it('is reached by requests split across both, and then refused on either', async () => {
    const [a, b] = [instances[0]!, instances[1]!];
    // The administrator spent one request of its window creating the user.
    const statuses: number[] = [];
    for (let i = 1; i < LIMIT; i++) statuses.push((await get(i % 2 === 0 ? a.url : b.url, '/api/org/structures', ADMIN)).status);
    expect(statuses).toEqual(Array.from({ length: LIMIT - 1 }, () => 200));
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
