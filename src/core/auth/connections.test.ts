import { describe, expect, it } from 'vitest';
import { ConnectionRegistry, userConnectionKey } from './connections.js';

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

  it('closes a user’s connections opened with other tokens than the current one, and lists users with connections', () => {
    const registry = new ConnectionRegistry();
    const calls: string[] = [];
    registry.register(userConnectionKey('u1', 'old'), (reason) => calls.push(`u1 old ${reason}`));
    registry.register(userConnectionKey('u1', 'older'), (reason) => calls.push(`u1 older ${reason}`));
    registry.register(userConnectionKey('u1', 'new'), (reason) => calls.push(`u1 new ${reason}`));
    registry.register(userConnectionKey('u2', 'old'), (reason) => calls.push(`u2 old ${reason}`));
    registry.register('key-1', (reason) => calls.push(`key ${reason}`));
    expect(registry.users().sort()).toEqual(['u1', 'u2']);
    expect(registry.closeUserExcept('u1', 'new', 'replaced')).toBe(2);
    expect(calls.sort()).toEqual(['u1 old replaced', 'u1 older replaced']);
    expect(registry.count(userConnectionKey('u1', 'new'))).toBe(1);
    // A user who is gone: every connection ends.
    expect(registry.closeUserExcept('u2', undefined, 'gone')).toBe(1);
    expect(registry.users()).toEqual(['u1']);
    expect(registry.count('key-1')).toBe(1);
  });
});
