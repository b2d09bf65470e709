import { describe, expect, it } from 'vitest';
import { chainRefusal, cycleRefusal, findCycle } from './rules.js';
import type { OpenRunLink } from './types.js';

const link = (runId: string, roleId: string, parentRunId: string | null = null): OpenRunLink => ({ runId, nodeId: `node-${roleId}`, roleId, parentRunId });
const target = (roleId: string) => ({ nodeId: `node-${roleId}`, roleId });

describe('delegation rules', () => {
  it('refuses the node itself, a node of the chain and a hop past the depth limit, in that order', () => {
    const lineage = { chain: [link('r1', 'x-ceo'), link('r2', 'x-cfo')], rootMessage: 'close the month' };
    expect(chainRefusal(lineage, target('x-cfo'), 4)).toEqual({ kind: 'self', message: 'x-cfo cannot delegate to itself' });
    expect(chainRefusal(lineage, target('x-ceo'), 4)?.kind).toBe('chain');
    expect(chainRefusal(lineage, target('x-ctl'), 1)).toEqual({
      kind: 'depth',
      message: 'delegating to x-ctl would go 2 hops below the root run (x-ceo → x-cfo → x-ctl); the most is 1 (ORG_DELEGATION_DEPTH)',
    });
    expect(chainRefusal(lineage, target('x-ctl'), 2)).toBeUndefined();
  });

  it('finds a cycle through delegated runs and the queues they wait in, and none where nothing waits back', () => {
    // r1 (x-a) delegated c1 to x-b, queued behind r2 (x-b, running); r2 delegated c2 to x-c,
    // queued behind r3 (x-c), which is the run asking to delegate to x-a, busy with r1.
    const open = [link('r1', 'x-a'), link('r2', 'x-b'), link('c1', 'x-b', 'r1'), link('r3', 'x-c'), link('c2', 'x-c', 'r2')];
    const roles = findCycle(open, { runId: 'r3', nodeId: 'node-x-c', roleId: 'x-c' }, target('x-a'));
    expect(roles).toEqual(['x-c', 'x-a', 'x-b', 'x-c']);
    expect(cycleRefusal(roles!, 'x-a').message).toBe('delegating to x-a would wait on its own chain: x-c → x-a → x-b → x-c (x-a is busy with work that is itself waiting on this run)');
    // Without r2's delegation nothing leads back to r3.
    expect(findCycle(open.filter((run) => run.runId !== 'c2'), { runId: 'r3', nodeId: 'node-x-c', roleId: 'x-c' }, target('x-a'))).toBeUndefined();
    // An idle target: nothing to wait for.
    expect(findCycle(open, { runId: 'r3', nodeId: 'node-x-c', roleId: 'x-c' }, target('x-idle'))).toBeUndefined();
  });
});
