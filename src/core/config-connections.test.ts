import { describe, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, REQUEST_TIMEOUT_MS, resolveConnectionLimits } from './config-connections.js';

describe('connection limits', () => {
  it('defaults, environment, and flags over environment', () => {
    expect(resolveConnectionLimits({}, {})).toEqual({
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      maxConnections: MAX_CONNECTIONS,
      maxConnectionsPerAddress: MAX_CONNECTIONS_PER_ADDRESS,
    });
    const env = { ORG_HEADERS_TIMEOUT: '5', ORG_REQUEST_TIMEOUT: '30.5', ORG_MAX_CONNECTIONS: '100', ORG_MAX_CONNECTIONS_PER_ADDRESS: '10' };
    expect(resolveConnectionLimits({}, env)).toEqual({ headersTimeoutMs: 5000, requestTimeoutMs: 30_500, maxConnections: 100, maxConnectionsPerAddress: 10 });
    expect(resolveConnectionLimits({ maxConnectionsPerAddress: '3', requestTimeout: 60 }, env)).toMatchObject({ requestTimeoutMs: 60_000, maxConnectionsPerAddress: 3 });
  });

  it('refuses values that are no limit, naming the flag or variable', () => {
    expect(() => resolveConnectionLimits({ maxConnections: '0' }, {})).toThrow(/--max-connections must be a whole number from 1/);
    expect(() => resolveConnectionLimits({}, { ORG_MAX_CONNECTIONS_PER_ADDRESS: '2.5' })).toThrow(/ORG_MAX_CONNECTIONS_PER_ADDRESS/);
    expect(() => resolveConnectionLimits({ requestTimeout: 'soon' }, {})).toThrow(/--request-timeout must be from/);
    expect(() => resolveConnectionLimits({ headersTimeout: '' }, {})).toThrow(/--headers-timeout/);
    expect(() => resolveConnectionLimits({ headersTimeout: 30, requestTimeout: 20 }, {})).toThrow(/cannot be longer than the request timeout/);
  });
});
