/**
 * The system prompt of the LLM runtime, built from the enriched turn: who the node is
 * and where it sits in its structure, the skills that match the request (with their
 * steps), the staged attachments, the recent conversation, and how to use the tools.
 */
import type { StoredMessage } from '../chat/store.js';
import type { Turn, TurnSkill } from './types.js';
import { excerpt } from './util.js';

/** Caps that keep the prompt a sensible size. */
const LIMITS = { stepText: 2000, historyMessages: 10, historyText: 600, startingContext: 8000 };

function clip(text: string, length: number): string {
  const trimmed = text.trim();
  return trimmed.length > length ? `${trimmed.slice(0, length - 1)}…` : trimmed;
}

function who(node: { role_id: string; label: string }): string {
  return `${node.label} (${node.role_id})`;
}

function skillSection(skill: TurnSkill): string {
  const lines = [`### ${skill.name} (/${skill.slug}) — score ${skill.score.toFixed(2)}, ${skill.status}`];
  if (skill.summary.trim()) lines.push(skill.summary.trim());
  if (skill.tool_url) lines.push(`Tool endpoint: ${skill.tool_url}`);
  for (const step of skill.steps) {
    lines.push(`${step.n}. ${step.title}`);
    const text = clip(step.text, LIMITS.stepText);
    if (text) lines.push(text.replace(/^/gm, '   '));
  }
  return lines.join('\n');
}

function historyLine(message: StoredMessage): string | undefined {
  const text = message.sender === 'user' ? message.text : message.text || message.summary || '';
  if (!text.trim()) return undefined;
  return `${message.sender === 'user' ? 'User' : 'You'}: ${clip(text, LIMITS.historyText)}`;
}

/** Names the listed neighbours, and how many more the turn left out. */
function listed(nodes: { role_id: string; label: string }[], total: number): string {
  if (nodes.length === 0) return 'none';
  const more = total - nodes.length;
  return nodes.map(who).join(', ') + (more > 0 ? ` and ${more} more` : '');
}

/** The system message of a turn. */
export function systemPrompt(turn: Turn): string {
  const { node } = turn;
  const sections: string[] = [
    `You are ${who(node)}, an agent of the workspace structure "${turn.structure.name}". ` +
      'A person is talking to you through the chat. Work on their request with the tools you have, then answer briefly.',
  ];
  if (node.starting_context.trim()) sections.push(`## Your starting context\n${clip(node.starting_context, LIMITS.startingContext)}`);
  sections.push(
    [
      '## Your place in the structure',
      `Reports to: ${node.parent ? who(node.parent) : 'nobody (you are at the top)'}`,
      `Direct reports: ${listed(node.children, node.children_total)}`,
      `Peers: ${listed(node.peers, node.peers_total)}`,
    ].join('\n'),
  );
  if (turn.delegated_by) {
    sections.push(
      `## Who asked\n${turn.delegated_by.role_id} handed you this task as part of a larger request` +
        (turn.root_message ? `: "${clip(turn.root_message, 500)}"` : '') +
        '. Answer with what they need; it goes back to them as your summary.',
    );
  }
  if (turn.explicit_skill) {
    sections.push(
      turn.skills.length
        ? `The user invoked the skill /${turn.explicit_skill} explicitly: follow its steps.`
        : `The user invoked /${turn.explicit_skill}, but no skill has that name; say so.`,
    );
  }
  if (turn.skills.length) {
    sections.push(`## Skills that match this request\n${turn.skills.map(skillSection).join('\n\n')}`);
  } else if (!turn.explicit_skill) {
    sections.push('## Skills that match this request\nNone matched. You may search the library with search_skills.');
  }
  if (turn.attachments.length) {
    sections.push(
      `## Attachments\n${turn.attachments.map((file) => `- ${file.name} (${file.content_type}, ${file.size} bytes) at ${file.path}`).join('\n')}`,
    );
  }
  const history = [...turn.history]
    .slice(0, LIMITS.historyMessages)
    .reverse()
    .map(historyLine)
    .filter((line): line is string => line !== undefined);
  if (history.length) sections.push(`## Recent conversation (oldest first)\n${history.join('\n')}`);
  sections.push(
    [
      '## How to work',
      '- search_skills and read_skill consult the skill library; prefer a matching skill\'s steps over improvising.',
      '- write_artifact saves a file (a report, a draft, data) to your artifact shelf.',
      '- record_decision commits a decision to the workspace log; flag_milestone marks progress.',
      '- Work that belongs to one of your reports (or another role) is theirs: find them with list_peers and hand it over ' +
        'with delegate, then build your answer on what comes back. Do not delegate back to whoever asked you.',
      '- When you completed a task that no skill covered, call learn_skill with a reusable playbook: ' +
        'a markdown body with one "## Step n: title" section per step.',
      '- End with a short reply to the person; it becomes the summary of the turn.',
    ].join('\n'),
  );
  return sections.join('\n\n');
}

/** The user message of a turn (the message itself, with a note about attachments). */
export function userPrompt(turn: Turn): string {
  if (!turn.attachments.length) return turn.message;
  return `${turn.message}\n\n(Attached: ${turn.attachments.map((file) => excerpt(file.name, 80)).join(', ')})`;
}
