/**
 * Printing chat events for scripts and pipes: the reply text streams to stdout as it
 * arrives and the summary follows it; progress (thoughts, tools, milestones, decisions,
 * learned skills) goes to stderr, so `org chat … -m … > reply.txt` keeps only the reply.
 */
import type { ChatEvent } from '../client/types.js';
import { excerpt } from './format.js';
import type { Output } from './output.js';

/** Where printed events go. */
export interface EventSink {
  output: Output;
  write: (chunk: string) => void;
}

/** A printer that remembers whether stdout ends mid-line. */
export function createEventPrinter(sink: EventSink): { print(event: ChatEvent): void; finish(): void } {
  let midLine = false;
  const endLine = () => {
    if (midLine) sink.write('\n');
    midLine = false;
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
        case 'tool_call':
          sink.output.err(`→ ${event.content.tool} ${excerpt(event.content.args, 100)}`);
          return;
        case 'tool_result':
          sink.output.err(`← ${event.content.tool} ${excerpt(event.content.result, 100)}`);
          return;
        case 'milestone':
          sink.output.err(`▸ ${event.content.title}`);
          return;
        case 'decision':
          sink.output.err(`◆ Decision: ${event.content.title}${event.content.body && event.content.body !== event.content.title ? ` — ${event.content.body}` : ''}`);
          return;
        case 'skill_learned':
          sink.output.err(`✎ learned a draft skill: ${event.content.slug} (${event.content.name}) — review it with: org drafts`);
          return;
        case 'complete':
          endLine();
          sink.output.out(`✔ ${event.content.summary}`);
          if (event.content.artifacts.length) sink.output.out(`artifacts: ${event.content.artifacts.join(', ')}`);
          return;
        case 'error':
          endLine();
          sink.output.err(`✖ error: ${event.content.message}`);
          return;
      }
    },
    finish: endLine,
  };
}
