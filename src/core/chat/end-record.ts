/**
 * The end record of a run (its agent message's end) from its terminal event: the status,
 * the agent's text, and the summary and artifacts of a `complete`. Used when a run ends
 * and when recovery closes one a stopped process left open.
 */
import { decodeEvent, type EncodedEvent } from './encoded.js';
import type { AgentEndRecord } from './store.js';

/** The end record of run `runId`, ended by `terminal`, whose agent wrote `text` (cut when `truncated`). */
export function endRecordOf(runId: string, terminal: EncodedEvent, text: string, truncated = false): AgentEndRecord {
  const event = decodeEvent(terminal);
  const complete = event.type === 'complete' ? event.content : undefined;
  return {
    run_id: runId,
    status: event.type === 'complete' ? ('complete' as const) : ('error' as const),
    text,
    ...(truncated ? { text_truncated: true as const } : {}),
    summary: complete?.summary ?? null,
    artifacts: complete?.artifacts ?? [],
    completed_at: event.timestamp,
  };
}
