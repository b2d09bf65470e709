import { describe, expect, it } from 'vitest';
import { resolveConfig } from './config.js';

describe('ORG_DELEGATION_DEPTH', () => {
  it('defaults to 4 hops, takes 0 to 16, and refuses anything else naming the variable', () => {
    expect(resolveConfig({}, {}).delegationDepth).toBe(4);
    expect(resolveConfig({}, { ORG_DELEGATION_DEPTH: '0' }).delegationDepth).toBe(0);
    expect(resolveConfig({}, { ORG_DELEGATION_DEPTH: '16' }).delegationDepth).toBe(16);
    for (const bad of ['17', '-1', '2.5', 'deep']) expect(() => resolveConfig({}, { ORG_DELEGATION_DEPTH: bad })).toThrow(/ORG_DELEGATION_DEPTH must be a whole number of hops from 0 to 16/);
  });
});
