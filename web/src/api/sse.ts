/**
 * Reads a chat stream (`text/event-stream` of `id: <n>` / `data: <event json>` frames)
 * from a fetch Response with eventsource-parser, calling `onEvent` per chat event.
 */
import { createParser } from 'eventsource-parser';
import type { ChatEvent } from './types';

/** What a finished read saw. */
export interface StreamResult {
  /** True when a terminal event (`complete` or `error`) arrived. */
  terminal: boolean;
}

/** True for the two terminal event types. */
export function isTerminal(event: { type: string }): boolean {
  return event.type === 'complete' || event.type === 'error';
}

/**
 * Feeds the body of `response` through the SSE parser until it ends. `seq` is the
 * frame's `id:` (undefined when absent). Frames whose data is not JSON are skipped.
 */
export async function readChatStream(response: Response, onEvent: (event: ChatEvent, seq: number | undefined) => void): Promise<StreamResult> {
  if (!response.body) return { terminal: false };
  let terminal = false;
  const parser = createParser({
    onEvent(message) {
      let event: ChatEvent;
      try {
        event = JSON.parse(message.data) as ChatEvent;
      } catch {
        return;
      }
      if (!event || typeof event.type !== 'string') return;
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
