/**
 * Reads a chat stream (`text/event-stream` of `id: <n>` / `data: <event json>` frames)
 * from a fetch Response with eventsource-parser, calling `onEvent` per chat event. Each
 * frame is checked against the `ChatEvent` schema by the client's `parseEventData`.
 */
import { createParser } from 'eventsource-parser';
import { parseEventData } from '../../../src/client/stream.js';
import { isTerminal } from '../../../src/core/chat/types.js';
import type { ChatEvent } from './types';

export { isTerminal };

/** What a finished read saw. */
export interface StreamResult {
  /** True when a terminal event (`complete` or `error`) arrived. */
  terminal: boolean;
}

/**
 * Feeds the body of `response` through the SSE parser until it ends. `seq` is the
 * frame's `id:` (undefined when absent). Frames that carry no valid chat event are skipped.
 */
export async function readChatStream(response: Response, onEvent: (event: ChatEvent, seq: number | undefined) => void): Promise<StreamResult> {
  if (!response.body) return { terminal: false };
  let terminal = false;
  const parser = createParser({
    onEvent(message) {
      const event = parseEventData(message.data);
      if (!event) return;
      const seq = message.id !== undefined && /^\d+$/.test(message.id) ? Number(message.id) : undefined;
      if (isTerminal(event)) terminal = true;
      onEvent(event, seq);
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
      if (terminal) break;
    }
  } finally {
    // Ends the body when we stopped early; harmless when it already ended or was aborted.
    reader.cancel().catch(() => undefined);
  }
  return { terminal };
}
