/**
 * Printing a run for `org chat -m` and `--run`: its events through the event printer (or
 * as JSON lines), and with `--follow` each run it delegates to, followed live and printed
 * indented under its delegation (runs those delegate further, indented further). A
 * delegation's outcome is printed once the delegated run's own events are.
 */
import type { ChatStream } from '../client/index.js';
import type { ChatEvent } from '../client/types.js';
import { createEventPrinter, type EventSink } from './chat-print.js';
import { delegateCall, delegateOutcome } from './delegation-print.js';

/** How a run is printed. */
export interface RunTreeOptions {
  sink: EventSink;
  /** One JSON line per event (a followed run's carry its `run_id` and `depth`). */
  json?: boolean;
  /** Opens the stream of a delegated run: given, delegated runs are followed. */
  follow?: (runId: string) => ChatStream;
}

/** Prints the events of `stream` (and, when following, of every run below it); resolves true when the run ended with `error`. */
export async function printRunTree(stream: AsyncIterable<{ event: ChatEvent }>, options: RunTreeOptions, depth = 0, runId?: string): Promise<boolean> {
  const sink = depth === 0 ? options.sink : indented(options.sink, depth);
  const printer = createEventPrinter(sink);
  const children = new Map<string, Promise<boolean>>();
  let failed = false;
  try {
    for await (const { event } of stream) {
      const outcome = delegateOutcome(event);
      // The delegated run's own events come first, then what it came to.
      if (outcome?.runId) await children.get(outcome.runId);
      if (options.json) sink.output.out(JSON.stringify(depth === 0 ? event : { ...event, run_id: runId, depth }));
      else printer.print(event);
      const call = delegateCall(event);
      if (options.follow && call?.runId && !children.has(call.runId)) {
        children.set(call.runId, printRunTree(options.follow(call.runId), options, depth + 1, call.runId).catch(() => true));
      }
      if (event.type === 'error') failed = true;
    }
    await Promise.all(children.values());
  } finally {
    printer.finish();
  }
  return failed;
}

/** A sink that indents every line it is given by `depth` levels. */
function indented(sink: EventSink, depth: number): EventSink {
  const prefix = '  '.repeat(depth);
  let lineStart = true;
  return {
    ...sink,
    output: { out: (line) => sink.output.out(prefix + line), err: (line) => sink.output.err(prefix + line) },
    write: (chunk) => {
      let text = '';
      for (const char of chunk) {
        if (lineStart && char !== '\n') text += prefix;
        text += char;
        lineStart = char === '\n';
      }
      sink.write(text);
    },
  };
}
