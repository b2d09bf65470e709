import { describe, expect, it } from 'vitest';
import type { EncodedEvent } from './encoded.js';
import { Run } from './run.js';

const where = { runId: 'r', structureId: 's', nodeId: 'n', roleId: 'team-x' };
const event = (seq: number, type: EncodedEvent['type'] = 'text'): EncodedEvent => ({
  seq,
  type,
  json: JSON.stringify({ type, content: type === 'text' ? `e${seq}` : { summary: 'done', artifacts: [] }, timestamp: 't' }),
});

describe('Run', () => {
  it('fans out published events in order to every subscriber, replaying earlier ones first', () => {
    const run = new Run(where);
    run.publish([event(1), event(2)]);
    const early: number[] = [];
    const late: number[] = [];
    run.subscribe(0, (e) => early.push(e.seq));
    run.subscribe(1, (e) => late.push(e.seq));
    run.publish([event(3)]);
    expect(early).toEqual([1, 2, 3]);
    expect(late).toEqual([2, 3]);
    expect(run.lastSeq).toBe(3);
    expect(run.eventsAfter(2).map((e) => e.seq)).toEqual([3]);
  });

  it('finishes on its terminal event: done resolves, status is set, listeners are released', async () => {
    const run = new Run(where);
    const seen: number[] = [];
    const unsubscribe = run.subscribe(0, (e) => seen.push(e.seq));
    run.publish([event(1), event(2, 'complete')]);
    await run.done;
    expect(run.finished).toBe(true);
    expect(run.status).toBe('complete');
    expect(run.terminal?.type).toBe('complete');
    expect(seen).toEqual([1, 2]);
    // A subscriber after the end gets the replay and nothing to unsubscribe from.
    const after: number[] = [];
    run.subscribe(1, (e) => after.push(e.seq))();
    expect(after).toEqual([2]);
    unsubscribe();
    expect(run.decoded().map((e) => e.type)).toEqual(['text', 'complete']);
    expect(run.bytes).toBeGreaterThan(0);
  });

  it('an unsubscribed listener hears nothing more', () => {
    const run = new Run(where);
    const seen: number[] = [];
    const unsubscribe = run.subscribe(0, (e) => seen.push(e.seq));
    run.publish([event(1)]);
    unsubscribe();
    run.publish([event(2)]);
    expect(seen).toEqual([1]);
  });
});
