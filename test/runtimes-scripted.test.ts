import { describe, expect, it } from 'vitest';
import type { EventInput } from '../src/core/chat/types.js';
import { fakeTools, recordingEmit, sampleTurn } from './helpers/runtime-contract.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';

const complete: EventInput = { type: 'complete', content: { summary: 's', artifacts: [] } };

describe('createScriptedRuntime', () => {
  it('emits its script in order and stops after the first terminal event', async () => {
    const recorder = recordingEmit();
    const script: EventInput[] = [{ type: 'thought', content: 't' }, complete, { type: 'text', content: 'never' }];
    await createScriptedRuntime(script).run(sampleTurn(), recorder.emit, fakeTools(), new AbortController().signal);
    expect(recorder.events).toEqual(script.slice(0, 2));
  });

  it('computes the script from the turn, and may end without a terminal event', async () => {
    const recorder = recordingEmit();
    const runtime = createScriptedRuntime((turn) => [{ type: 'text', content: turn.message }], { name: 'echo' });
    await runtime.run(sampleTurn({ message: 'ping' }), recorder.emit, fakeTools(), new AbortController().signal);
    expect(runtime.name).toBe('echo');
    expect(recorder.events).toEqual([{ type: 'text', content: 'ping' }]);
  });

  it('stops during its pause when aborted', async () => {
    const recorder = recordingEmit();
    const controller = new AbortController();
    const running = createScriptedRuntime([{ type: 'text', content: 'a' }, complete], { delayMs: 10_000 }).run(sampleTurn(), recorder.emit, fakeTools(), controller.signal);
    await recorder.waitFor(1);
    controller.abort();
    await running;
    expect(recorder.events).toEqual([{ type: 'text', content: 'a' }]);
  });
});
