/**
 * Printing chat events for scripts and pipes. stdout carries the whole readable reply:
 * step headings (milestones), the streamed text, decisions, what was learned, the
 * summary and the artifacts — so `org chat … -m … > reply.md` keeps a complete answer.
 * stderr carries the progress around it: thoughts and tool calls with their results.
 * A delegation to another node is part of the reply: `→ <label> (<role_id>): <message>`
 * and its outcome go to stdout (see delegation-print.ts).
 */
import type { ChatEvent } from '../client/types.js';
import { callLine, delegateCall, delegateOutcome, outcomeLine } from './delegation-print.js';
import { excerpt } from './format.js';
import { decisionText } from './decision.js';
import { describeLearned, learnedOutcome } from './learned.js';
import type { Output } from './output.js';

/** Where printed events go. */
export interface EventSink {
  output: Output;
  write: (chunk: string) => void;
  /** The label of a node of the structure, for delegation lines. */
  labelOf?: (roleId: string) => string | undefined;
}

/** A printer that remembers whether stdout ends mid-line, and which tool calls are still open. */
export function createEventPrinter(sink: EventSink): { print(event: ChatEvent): void; finish(): void } {
  let midLine = false;
  const open: string[] = [];
  const endLine = () => {
    if (midLine) sink.write('\n');
    midLine = false;
  };
  const line = (text: string) => {
    endLine();
    sink.output.out(text);
  };
  /** Tool calls of a turn that ended without their result are said to have none. */
  const closeTools = () => {
    for (const tool of open.splice(0)) sink.output.err(`⊘ ${tool}: no result (the turn ended first)`);
  };
  return {
    print(event) {
      switch (event.type) {
        case 'text':
          if (!event.content) return;
          sink.write(event.content);
          midLine = !event.content.endsWith('\n');
          return;
        case 'thought':
          sink.output.err(`· ${event.content}`);
          return;
        case 'tool_call': {
          open.push(event.content.tool);
          const delegation = delegateCall(event);
          if (delegation) line(callLine(delegation, sink.labelOf));
          else sink.output.err(`→ ${event.content.tool} ${excerpt(event.content.args, 100)}`);
          return;
        }
        case 'tool_result': {
          const at = open.lastIndexOf(event.content.tool);
          if (at >= 0) open.splice(at, 1);
          const outcome = delegateOutcome(event);
          if (outcome) line(outcomeLine(outcome, sink.labelOf));
          else sink.output.err(`← ${event.content.tool} ${excerpt(event.content.result, 100)}`);
          return;
        }
        case 'milestone':
          line(`▸ ${event.content.title}`);
          return;
        case 'decision':
          line(`◆ Decision: ${decisionText(event.content.title, event.content.body)}`);
          return;
        case 'skill_learned': {
          const outcome = learnedOutcome(event.content);
          if (outcome) for (const text of describeLearned(outcome)) line(text);
          return;
        }
        case 'complete':
          closeTools();
          line(`✔ ${event.content.summary}`);
          if (event.content.artifacts.length) sink.output.out(`artifacts: ${event.content.artifacts.join(', ')}`);
          return;
        case 'error':
          closeTools();
          endLine();
          sink.output.err(`✖ error: ${event.content.message}`);
          return;
      }
    },
    finish: endLine,
  };
}
