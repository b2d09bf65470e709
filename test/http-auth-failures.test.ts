/**
 * Failed authentication and the rate windows (issue 28, finding 9), on a real listening
 * server. Made-up bearer tokens get no rate window of their own: however many arrive
 * (more than the in-memory cache holds), a real token's window is kept. They are counted
 * as failed authentications of their client address instead, which past its limit gets
 * 429 with Retry-After — while a real token from the same address, and every other
 * address, is still served. Each address is a loopback address of its own (127.0.0.x).
 */
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_KEYS } from '../src/core/auth/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const RATE_LIMIT = 50;
const FAILURES = 5;

describe('rate windows and failed authentication', () => {
  let t: TestInstance;
  let user: { token: string; id: string };

  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { rateLimit: RATE_LIMIT, authFailureLimit: FAILURES } });
    user = await t.createUser('windows@example.com');
  });
  afterAll(async () => {
    await t.close();
  });

  /** A pool of connections from one loopback address. */
  const from = (address: string) => new Pool(t.url, { connections: 16, pipelining: 1, localAddress: address });
  const get = async (pool: Pool, token: string | undefined, path = '/api/org/structures') => {
    const answer = await pool.request({ method: 'GET', path, headers: token ? { authorization: `Bearer ${token}` } : {} });
    const text = await answer.body.text();
    return { status: answer.statusCode, headers: answer.headers, body: text ? (JSON.parse(text) as { detail?: string }) : {} };
  };
  const guess = () => `org_u_${randomBytes(24).toString('hex')}`;

  it("unknown tokens cannot evict a real token's rate window", async () => {
    const real = from('127.0.0.1');
    const flood = from('127.0.0.3');
    try {
      for (let i = 0; i < 3; i++) expect((await get(real, user.token)).status).toBe(200);
      // More made-up tokens than the window cache holds, 32 at a time.
      let sent = 0;
      const statuses = new Set<number>();
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (sent < DEFAULT_RATE_KEYS + 100) {
            sent++;
            statuses.add((await get(flood, guess())).status);
          }
        }),
      );
      // Refused as unknown (401), then as too many failures of the address (429).
      expect(statuses.has(401)).toBe(true);
      // The real token's window went on counting from where it was: 3 spent, this is the 4th.
      const after = await get(real, user.token);
      expect(after.status).toBe(200);
      expect(after.headers['x-ratelimit-remaining']).toBe(String(RATE_LIMIT - 4));
    } finally {
      await Promise.all([real.close(), flood.close()]);
    }
  }, 120_000);

  it('failed authentication is limited per address', async () => {
    const guesser = from('127.0.0.4');
    const other = from('127.0.0.5');
    try {
      // Missing, unknown and malformed bearers alike are failures of the address.
      const statuses: number[] = [];
      for (const token of [undefined, guess(), 'not-a-token', guess(), guess()]) statuses.push((await get(guesser, token)).status);
      expect(statuses).toEqual(Array.from({ length: FAILURES }, () => 401));
      const refused = await get(guesser, guess());
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.detail).toMatch(/^too many requests with a missing, unknown or revoked token from this address \(5 a minute\); retry in \d+ seconds?$/);
      // MCP keys and user tokens share the limit; /mcp too.
      expect((await get(guesser, `org_mcp_${randomBytes(20).toString('hex')}`, '/mcp')).status).toBe(429);
      // A real token from the same address still works, as does anybody at another address.
      expect((await get(guesser, user.token)).status).toBe(200);
      expect((await get(other, guess())).status).toBe(401);
      // Public routes are not failures.
      expect((await get(guesser, undefined, '/api/org/health')).status).toBe(200);
    } finally {
      await Promise.all([guesser.close(), other.close()]);
    }
  });
});
