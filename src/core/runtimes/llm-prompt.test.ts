import { describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../chat/types.js';
import { sampleSkill, sampleTurn } from '../../../test/helpers/runtime-contract.js';
import { systemPrompt, userPrompt } from './llm-prompt.js';

function message(sender: 'user' | 'agent', text: string, summary: string | null = null): HistoryMessage {
  return { id: text, run_id: 'r', sender, text, attachments: [], events: [], summary, artifacts: [], status: 'complete', created_at: '', completed_at: null };
}

describe('systemPrompt', () => {
  it('describes the node, its neighbours, the matched skills with steps, attachments and history', () => {
    const turn = sampleTurn({
      node: {
        id: 'n', role_id: 'cto', label: 'CTO', starting_context: 'Keep the lights on.',
        parent: { role_id: 'ceo', label: 'CEO' }, children: [], children_total: 0, peers: [{ role_id: 'cfo', label: 'CFO' }], peers_total: 1,
      },
      skills: [sampleSkill('deploy', 2)],
      attachments: [{ name: 'plan.pdf', content_type: 'application/pdf', size: 1234, path: '/shelf/plan.pdf' }],
      // Newest first, as the history API gives it.
      history: [message('agent', '', 'Answered the first question.'), message('user', 'first question')],
    });
    const prompt = systemPrompt(turn);
    expect(prompt).toContain('You are CTO (cto), an agent of the workspace structure "Acme".');
    expect(prompt).toContain('Keep the lights on.');
    expect(prompt).toContain('Reports to: CEO (ceo)');
    expect(prompt).toContain('Direct reports: none');
    expect(prompt).toContain('Peers: CFO (cfo)');
    expect(prompt).toContain('### Deploy (/deploy) — score 0.90, complete');
    expect(prompt).toContain('1. Step title 1\n   Gather the numbers.');
    expect(prompt).toContain('- plan.pdf (application/pdf, 1234 bytes) at /shelf/plan.pdf');
    expect(prompt).toMatch(/User: first question\nYou: Answered the first question\./);
    expect(userPrompt(turn)).toBe('hello world\n\n(Attached: plan.pdf)');
  });

  it('says when an explicit skill does not exist, and when nothing matched', () => {
    expect(systemPrompt(sampleTurn({ explicit_skill: 'ghost' }))).toContain('The user invoked /ghost, but no skill has that name');
    expect(systemPrompt(sampleTurn({ explicit_skill: 'deploy', skills: [sampleSkill('deploy')] }))).toContain('invoked the skill /deploy explicitly');
    expect(systemPrompt(sampleTurn())).toContain('None matched.');
  });

  it('says how many neighbours a turn left out', () => {
    const base = sampleTurn().node;
    const prompt = systemPrompt(sampleTurn({ node: { ...base, peers: [{ role_id: 'cfo', label: 'CFO' }], peers_total: 120 } }));
    expect(prompt).toContain('Peers: CFO (cfo) and 119 more');
    expect(prompt).toContain('Direct reports: CTO (cto)\n');
  });
});
