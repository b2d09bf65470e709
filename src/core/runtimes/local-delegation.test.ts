import { describe, expect, it } from 'vitest';
import { fakeTools, recordingEmit, sampleTurn } from '../../../test/helpers/runtime-contract.js';
import { createLocalRuntime } from './local.js';
import { delegatedMessage, stepDelegation } from './local-delegation.js';
import type { TurnSkill } from './types.js';

const playbook: TurnSkill = {
  slug: 'quarterly-plan',
  name: 'Quarterly plan',
  score: 1,
  status: 'complete',
  tool_url: null,
  summary: 'Plan the quarter.',
  steps: [
    { id: 'tech', n: 1, title: 'Get the technical plan', text: 'Delegate to acme-cto.\nList the three biggest engineering bets.\n- Each with an estimate.' },
    { id: 'decide', n: 2, title: 'Decide', text: 'Decision: Fund the two cheapest bets.' },
  ],
};

describe('local runtime: steps that delegate', () => {
  it('finds the lines "Delegate to <role_id>." of a step, in order, and keeps its other lines', () => {
    expect(stepDelegation('Delegate to exec-cfo.\n- **Delegate to exec-finance-controller.**\nDo the thing.\nDelegate to nobody here')).toEqual({
      roles: ['exec-cfo', 'exec-finance-controller'],
      instructions: 'Do the thing.\nDelegate to nobody here',
    });
    expect(stepDelegation('No delegation here.')).toEqual({ roles: [], instructions: 'No delegation here.' });
    expect(delegatedMessage({ title: 'Close the books' }, 'Reconcile.\nPost accruals.', 'Run the close')).toBe('Close the books: Reconcile.\nPost accruals.\n\nRequest: Run the close');
  });

  it('sends the step title, its other lines and the root request; waits; the milestone and the report carry what came back', async () => {
    const tools = fakeTools([playbook]);
    const events = recordingEmit();
    const turn = sampleTurn({ message: 'a part of the plan', root_message: 'Plan Q3', skills: [playbook] });
    await createLocalRuntime().run(turn, events.emit, tools, new AbortController().signal);
    expect(tools.delegations).toEqual([{ roleId: 'acme-cto', message: 'Get the technical plan: List the three biggest engineering bets.\n- Each with an estimate.\n\nRequest: Plan Q3' }]);
    const milestones = events.events.filter((event) => event.type === 'milestone').map((event) => event.content);
    expect(milestones).toEqual([
      { title: 'Step 1: Get the technical plan — CTO (acme-cto): acme-cto did: Get the technical plan: List the three biggest engineering bets. - Each with an estimate. Request: Plan Q3' },
      { title: 'Step 2: Decide' },
    ]);
    // The runtime emits nothing of its own for a delegation: the engine shows it.
    expect(events.events.some((event) => event.type === 'tool_call' && event.content.tool === 'delegate')).toBe(false);
    const report = [...tools.artifacts.values()][0]!.content;
    expect(report).toContain('## Who did what');
    expect(report).toContain('- CEO (ceo): Step 2');
    expect(report).toMatch(/- CTO \(acme-cto\): Step 1 \(Get the technical plan\) — acme-cto did: /);
    expect(events.events.at(-1)).toMatchObject({ type: 'complete', content: { summary: expect.stringMatching(/^Followed "Quarterly plan" through 2 step\(s\) with acme-cto; the run report is /) } });
  });
});
