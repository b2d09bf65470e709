import { describe, expect, it } from 'vitest';
import { RunAppender, type AppenderHooks } from './appender.js';
import { sseFrame, type EncodedEvent } from './encoded.js';
import { parseEvent } from './events.js';
import type { FrameBatch } from './frames.js';
import { Run } from './run.js';
import { END_TEXT, type RunEventWriter } from './store.js';
import type { RelayedEvent } from './types.js';

const where = { runId: 'r', structureId: 's', nodeId: 'n', roleId: 'team-x' };

/** An event as a relay hands it over: validated, with the JSON text it was parsed from and that parse. */
function relayed(raw: string): RelayedEvent {
  const parsed: unknown = JSON.parse(raw);
  const result = parseEvent(parsed);
  if (!result.ok) throw new Error(result.message);
  return { event: result.event, raw, parsed };
}

/** A writer whose writes complete only when the test says so. */
function gatedWriter() {
  const writes: { batch: EncodedEvent[]; batches: readonly FrameBatch[]; release: (error?: Error) => void }[] = [];
  let onWrite: () => void = () => undefined;
  const writer: RunEventWriter = {
    write: (batches) =>
      new Promise<void>((resolve, reject) => {
        writes.push({ batch: batches.flatMap((batch) => batch.events()), batches, release: (error) => (error ? reject(error) : resolve()) });
        onWrite();
      }),
    close: async () => undefined,
  };
  const nextWrite = () => new Promise<void>((resolve) => (onWrite = resolve));
  return { writer, writes, nextWrite };
}

function setup(hooks: Partial<AppenderHooks> = {}) {
  const run = new Run(where);
  const gate = gatedWriter();
  const ended: { terminal: EncodedEvent; text: string; truncated: boolean }[] = [];
  const errors: unknown[] = [];
  const appender = new RunAppender(run, gate.writer, () => 'T', {
    end: async (terminal, text, truncated) => {
      ended.push({ terminal, text, truncated });
    },
    onError: (error) => errors.push(error),
    ...hooks,
  });
  const published: number[] = [];
  run.subscribe(0, (event) => published.push(event.seq));
  return { run, appender, gate, ended, errors, published };
}

describe('RunAppender', () => {
  it('numbers events in call order, writes them in group commits and publishes each batch only once it is durable', async () => {
    const { appender, gate, published } = setup();
    const firstWrite = gate.nextWrite();
    const a = appender.append({ type: 'thought', content: 'a' });
    await firstWrite;
    // While the first write is in flight, two more events queue up: they go in one write.
    const b = appender.append({ type: 'text', content: 'b' });
    const c = appender.append({ type: 'text', content: 'c' });
    expect(published).toEqual([]);
    const secondWrite = gate.nextWrite();
    gate.writes[0]!.release();
    await a;
    expect(published).toEqual([1]);
    await secondWrite;
    expect(gate.writes[1]!.batch.map((event) => event.seq)).toEqual([2, 3]);
    gate.writes[1]!.release();
    await Promise.all([b, c]);
    expect(published).toEqual([1, 2, 3]);
  });

  it('batches queued behind a write go in one commit as their own Buffers (never joined) and reach a follower in one call', async () => {
    const { run, appender, gate } = setup();
    const calls: FrameBatch[][] = [];
    run.follow(0, (batches) => calls.push([...batches]));
    const firstWrite = gate.nextWrite();
    const a = appender.append({ type: 'thought', content: 'a' });
    await firstWrite;
    const b = appender.appendBatch([relayed('{"type":"text","content":"b"}'), relayed('{"type":"text","content":"c"}')]);
    const c = appender.appendBatch([{ event: { type: 'text', content: 'e' } }, relayed('{"type":"thought","content":"d"}')]);
    const secondWrite = gate.nextWrite();
    gate.writes[0]!.release();
    await a;
    await secondWrite;
    const second = gate.writes[1]!;
    expect(second.batches.map((batch) => [batch.first, batch.last])).toEqual([
      [2, 3],
      [4, 5],
    ]);
    // One Buffer of frames per batch, each the frames of its own events exactly (written and published as they are).
    second.batches.forEach((batch) => expect(batch.frames.toString()).toBe(batch.events().map(sseFrame).join('')));
    expect(second.batch.map((event) => JSON.parse(event.json) as unknown)).toEqual([
      { type: 'text', content: 'b', timestamp: 'T' },
      { type: 'text', content: 'c', timestamp: 'T' },
      { type: 'text', content: 'e', timestamp: 'T' },
      { type: 'thought', content: 'd', timestamp: 'T' },
    ]);
    second.release();
    await Promise.all([b, c]);
    // The follower got the first commit, then both batches of the second in one call.
    expect(calls.map((batches) => batches.map((batch) => batch.first))).toEqual([[1], [2, 4]]);
    expect(run.eventsAfter(0).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('seals on the first terminal event: later appends are dropped, and the end is recorded with the text', async () => {
    const { run, appender, gate, ended, published } = setup();
    const write = gate.nextWrite();
    const done = appender.append({ type: 'text', content: 'hello ' });
    appender.append({ type: 'text', content: 'world' }).catch(() => undefined);
    const terminal = appender.append({ type: 'complete', content: { summary: 's', artifacts: [] } });
    expect(appender.sealed).toBe(true);
    await appender.append({ type: 'text', content: 'too late' });
    await write;
    const second = gate.nextWrite();
    gate.writes[0]!.release();
    await second;
    expect(gate.writes[1]!.batch.map((event) => event.seq)).toEqual([2, 3]);
    gate.writes[1]!.release();
    await Promise.all([done, terminal, run.done]);
    expect(published).toEqual([1, 2, 3]);
    expect(ended).toHaveLength(1);
    expect(ended[0]!.terminal.seq).toBe(3);
    expect(JSON.parse(ended[0]!.terminal.json)).toEqual({ type: 'complete', content: { summary: 's', artifacts: [] }, timestamp: 'T' });
    expect(ended[0]!.text).toBe('hello world');
    expect(ended[0]!.truncated).toBe(false);
  });

  it('keeps the first END_TEXT characters of the text for the end, marked truncated, relayed or not', async () => {
    const { run, appender, gate, ended } = setup();
    gate.writer.write = async () => undefined;
    // Relayed batches of text events, past the limit in the middle of one.
    const token = 'x'.repeat(1000);
    const batch = () => Array.from({ length: 10 }, () => relayed(JSON.stringify({ type: 'text', content: token })));
    void appender.appendBatch(batch());
    // Past the limit here, then more relayed text, which is no longer joined.
    void appender.append({ type: 'text', content: 'y'.repeat(END_TEXT) });
    void appender.appendBatch(batch());
    await appender.append({ type: 'complete', content: { summary: 's', artifacts: [] } });
    await run.done;
    expect(ended[0]!.truncated).toBe(true);
    expect(ended[0]!.text).toBe(`${token.repeat(10)}${'y'.repeat(END_TEXT - 10_000)}`);
    // Every event is in the run all the same.
    expect(run.eventsAfter(0)).toHaveLength(22);
  });

  it('a reserved terminal place keeps its order while its events are computed; appends meanwhile are dropped', async () => {
    const { run, appender, gate, published } = setup();
    let fill!: () => void;
    const computed = new Promise<void>((resolve) => (fill = resolve));
    const first = gate.nextWrite();
    appender.append({ type: 'thought', content: 'before' }).catch(() => undefined);
    const reserved = appender.appendTerminal(async () => {
      await computed;
      return [
        { type: 'skill_learned', content: { slug: 'x', name: 'X', stored: true } },
        { type: 'complete', content: { summary: 's', artifacts: [] } },
      ];
    });
    await appender.append({ type: 'error', content: { message: 'cancelled' } });
    await first;
    gate.writes[0]!.release();
    const second = gate.nextWrite();
    fill();
    await second;
    expect(gate.writes[1]!.batch.map((event) => [event.seq, event.type])).toEqual([
      [2, 'skill_learned'],
      [3, 'complete'],
    ]);
    gate.writes[1]!.release();
    await reserved;
    await run.done;
    expect(published).toEqual([1, 2, 3]);
    expect(run.status).toBe('complete');
  });

  it('a failed write is reported and still published (no subscriber waits forever); the append rejects', async () => {
    const { run, appender, gate, errors } = setup();
    const write = gate.nextWrite();
    const result = appender.append({ type: 'error', content: { message: 'boom' } });
    await write;
    gate.writes[0]!.release(new Error('disk full'));
    await expect(result).rejects.toThrow('disk full');
    await run.done;
    expect(run.status).toBe('error');
    expect(errors).toHaveLength(1);
  });

  it('idle resolves once everything appended is durable', async () => {
    const { appender, gate, published } = setup();
    const write = gate.nextWrite();
    void appender.append({ type: 'text', content: 'x' });
    let idle = false;
    const waiting = appender.idle().then(() => (idle = true));
    await write;
    expect(idle).toBe(false);
    gate.writes[0]!.release();
    await waiting;
    expect(published).toEqual([1]);
  });

  it('side effects of a batch are written beside its events, before it is published', async () => {
    const order: string[] = [];
    const { appender, gate, run } = setup({
      logged: (events) => {
        order.push(`log ${events.map((event) => event.type).join(',')}`);
        return Promise.resolve();
      },
    });
    run.subscribe(0, (event) => order.push(`publish ${event.seq}`));
    const write = gate.nextWrite();
    const done = appender.append({ type: 'decision', content: { title: 'Go', body: 'now' } });
    await write;
    gate.writes[0]!.release();
    await done;
    expect(order).toEqual(['log decision', 'publish 1']);
  });
});
