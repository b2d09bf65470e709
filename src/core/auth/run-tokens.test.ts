import { describe, expect, it } from 'vitest';
import { hashToken } from './tokens.js';
import { RunTokens, type RunTokenRecord, type RunTokenStore } from './run-tokens.js';

const where = { runId: '33333333-3333-4333-8333-333333333333', structureId: 's', nodeId: 'n', roleId: 'exec-ceo' };

describe('run tokens', () => {
  it('authenticate their run until it ends or they expire, whichever comes first; only the hash is stored', async () => {
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const stored = new Map<string, RunTokenRecord>();
    const store: RunTokenStore = { put: async (hash, record) => void stored.set(hash, record), get: async (hash) => stored.get(hash) };
    const tokens = new RunTokens({ store, clock: { now: () => new Date(now) }, ttlMs: 60_000 });
    const { token, expiresAt } = await tokens.issue(where);
    expect(token).toMatch(/^org_run_[0-9A-Za-z]{40}$/);
    expect(expiresAt).toBe('2030-01-01T00:01:00.000Z');
    expect([...stored.keys()]).toEqual([hashToken(token)]);
    expect(JSON.stringify([...stored.values()])).not.toContain(token);
    expect(tokens.known(hashToken(token))).toMatchObject(where);
    // Another instance sharing the store knows it too.
    const elsewhere = new RunTokens({ store, clock: { now: () => new Date(now) } });
    expect(await elsewhere.authenticate(hashToken(token))).toMatchObject(where);
    // Expiry.
    now += 60_000;
    expect(tokens.known(hashToken(token))).toBeUndefined();
    expect(await elsewhere.authenticate(hashToken(token))).toBeUndefined();
    // The run's end.
    now -= 30_000;
    const second = await tokens.issue(where);
    expect(await tokens.authenticate(hashToken(second.token))).toMatchObject(where);
    tokens.end(where.runId);
    stored.clear(); // a shared store drops them with the run's end
    expect(await tokens.authenticate(hashToken(second.token))).toBeUndefined();
    expect(await tokens.authenticate(hashToken('org_run_unknown'))).toBeUndefined();
  });
});
