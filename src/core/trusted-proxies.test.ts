import { describe, expect, it } from 'vitest';
import { parseTrustedProxies } from './trusted-proxies.js';

describe('parseTrustedProxies', () => {
  it('takes addresses, CIDR ranges and named ranges, comma-separated over several values', () => {
    expect(parseTrustedProxies(['127.0.0.1, 10.0.0.0/8', '::1,fd00::/8', 'loopback'], '--trust-proxy')).toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback']);
    expect(parseTrustedProxies([' , '], 'ORG_TRUST_PROXY')).toEqual([]);
  });

  it('refuses anything else, naming the setting and the value', () => {
    for (const bad of ['true', '*', 'proxy.example.com', '10.0.0.0/33', '::1/129', '10.0.0/8', '1', '127.0.0.1/']) {
      expect(() => parseTrustedProxies([bad], 'ORG_TRUST_PROXY'), bad).toThrow(`ORG_TRUST_PROXY: "${bad}" is not an address, a CIDR range or one of loopback, linklocal, uniquelocal`);
    }
  });
});
