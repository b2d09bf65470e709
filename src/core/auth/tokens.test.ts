import { describe, expect, it } from 'vitest';
import { TOKEN_PREFIX, hashToken, looksLike, mintToken, randomBase62, sameHash, sameSecret } from './tokens.js';

describe('tokens', () => {
  it.each(Object.entries(TOKEN_PREFIX))('a %s token is its prefix %s and ≥32 base62 characters', (kind, prefix) => {
    const token = mintToken(kind as keyof typeof TOKEN_PREFIX);
    expect(token.startsWith(prefix)).toBe(true);
    expect(token.slice(prefix.length)).toMatch(/^[0-9A-Za-z]{32,}$/);
    expect(looksLike(kind as keyof typeof TOKEN_PREFIX, token)).toBe(true);
  });

  it('the prefixes are those of API.md', () => {
    expect(TOKEN_PREFIX).toEqual({ user: 'org_u_', mcp: 'org_mcp_', invite: 'org_inv_', run: 'org_run_' });
  });

  it('randomBase62 gives exactly the length asked, base62 only, using the whole alphabet', () => {
    for (const length of [0, 1, 7, 32, 100]) expect(randomBase62(length)).toHaveLength(length);
    const sample = randomBase62(20_000);
    expect(sample).toMatch(/^[0-9A-Za-z]+$/);
    expect(new Set(sample).size).toBe(62);
  });

  it('has no modulo bias: every character appears 1/62 of the time (±5σ)', () => {
    const counts = new Map<string, number>();
    for (const char of randomBase62(620_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 10,000 each (σ ≈ 99); `byte % 62` without rejection would give the first
    // eight characters about 12,200.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(9_500);
      expect(count).toBeLessThan(10_500);
    }
  });

  it('minted tokens are unique', () => {
    const tokens = new Set(Array.from({ length: 2000 }, () => mintToken('mcp')));
    expect(tokens.size).toBe(2000);
  });

  it('hashToken is hex SHA-256, deterministic, and differs per token', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const token = mintToken('user');
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toBe(hashToken(mintToken('user')));
    expect(hashToken(token)).not.toContain(token.slice(6));
  });

  it('sameHash compares hashes; different lengths or values are false', () => {
    const a = hashToken('one');
    expect(sameHash(a, a)).toBe(true);
    expect(sameHash(a, hashToken('two'))).toBe(false);
    expect(sameHash(a, a.slice(0, 62))).toBe(false);
    expect(sameHash(a, '')).toBe(false);
  });

  it('sameSecret compares presented and expected secrets of any length', () => {
    expect(sameSecret('test-admin-token-0123456789abcdef', 'test-admin-token-0123456789abcdef')).toBe(true);
    expect(sameSecret('test-admin-token-0123456789abcdeF', 'test-admin-token-0123456789abcdef')).toBe(false);
    expect(sameSecret('short', 'test-admin-token-0123456789abcdef')).toBe(false);
  });

  it('looksLike rejects other kinds, short tails and non-base62 characters', () => {
    const mcp = mintToken('mcp');
    expect(looksLike('user', mcp)).toBe(false);
    expect(looksLike('mcp', 'org_mcp_' + 'a'.repeat(31))).toBe(false);
    expect(looksLike('mcp', 'org_mcp_' + 'a'.repeat(31) + '-')).toBe(false);
    expect(looksLike('mcp', 'org_mcp_' + 'a'.repeat(32))).toBe(true);
  });
});
