/**
 * The LLM runtime's tools for the org chart (API.md §10): `list_peers` shows the model
 * its node and the other nodes of the structure (who reports to whom, who is busy), and
 * `delegate({role_id, message})` hands a task to one of them as that node's own turn and
 * returns what came back. The engine shows each delegation in the turn's stream (its
 * `tool_call` carries the new run's id), so the runtime emits no events of its own for
 * `delegate`.
 */
import { DELEGATE_TOOL } from '../schemas/delegation.js';
import type { FunctionTool } from './llm-tools.js';
import type { TurnTools } from './types.js';

/** The two tool definitions, as OpenAI function tools. */
export const DELEGATION_TOOLS: readonly FunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'list_peers',
      description:
        'List the nodes of your organisation: yourself (self) and every other node (peers) with its role_id, label, ' +
        'state (idle or working) and parent role_id. Your direct reports are the peers whose parent is your role_id. ' +
        'Use it to find who owns a piece of work before you delegate.',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
    },
  },
  {
    type: 'function',
    function: {
      name: DELEGATE_TOOL,
      description:
        'Hand a task to another node of your organisation and wait for its answer (its summary and the files it wrote). ' +
        'Delegate work that belongs to one of your reports or to another role instead of doing it yourself, as a manager ' +
        'would: say what outcome you need, by when and in what form. The node works on it as its own turn (it may ' +
        'delegate further down). You cannot delegate to yourself or back up the chain that asked you; a refused ' +
        'delegation returns status "error" and why, and you carry on without it.',
      parameters: {
        type: 'object',
        properties: {
          role_id: { type: 'string', description: 'The role_id of the node that should do the task (see list_peers), e.g. exec-cfo.' },
          message: { type: 'string', description: 'The task, as you would write it to that person: the outcome you need and any context.' },
        },
        required: ['role_id', 'message'],
        additionalProperties: false,
      },
    },
  },
];

/** True for the tools of this module. */
export function isDelegationTool(name: string): boolean {
  return name === 'list_peers' || name === DELEGATE_TOOL;
}

/** Runs `list_peers` or `delegate` with parsed arguments; a wrong argument is the model's to correct. */
export async function executeDelegationTool(name: string, args: Record<string, unknown>, tools: TurnTools): Promise<unknown> {
  if (name === 'list_peers') return tools.listPeers();
  // The engine checks the target and the task (a refusal says what is wrong) and shows the delegation.
  const roleId = typeof args.role_id === 'string' ? args.role_id : String(args.role_id ?? '');
  const message = typeof args.message === 'string' ? args.message : '';
  return tools.delegate(roleId, message);
}
