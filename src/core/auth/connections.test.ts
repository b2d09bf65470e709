import { describe, expect, it } from 'vitest';
import { ConnectionRegistry } from './connections.js';

describe('ConnectionRegistry', () => {
  it('closes every connection of a key with the reason, once, and leaves other keys open', () => {
    const registry = new ConnectionRegistry();
    const calls: string[] = [];
    registry.register('k1', (reason) => calls.push(`a ${reason}`));
    registry.register('k1', () => {
      throw new Error('already gone');
    });
    registry.register('k1', (reason) => calls.push(`c ${reason}`));
    registry.register('k2', (reason) => calls.push(`other ${reason}`));
    expect(registry.count('k1')).toBe(3);
    expect(registry.closeAll('k1', 'key revoked')).toBe(3);
    expect(calls).toEqual(['a key revoked', 'c key revoked']);
    expect(registry.count('k1')).toBe(0);
    expect(registry.closeAll('k1', 'key revoked')).toBe(0);
    expect(calls).toHaveLength(2);
    expect(registry.count('k2')).toBe(1);
  });

  it('an unregistered connection is not closed', () => {
    const registry = new ConnectionRegistry();
    const calls: string[] = [];
    const unregister = registry.register('k', (reason) => calls.push(reason));
    unregister();
    expect(registry.count('k')).toBe(0);
    expect(registry.closeAll('k', 'key revoked')).toBe(0);
    expect(calls).toEqual([]);
  });
});
