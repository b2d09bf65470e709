/**
 * What an MCP client transport received, in order, before the SDK's protocol layer
 * handles it. The SDK clients (1.x and v2) handle a notification one microtask after
 * it arrives but a response at once, so a progress notification that arrives in the
 * same read as its request's response is dropped by the client ("unknown token"),
 * depending on how the bytes happened to be split. Tests of what the server sends
 * read the wire instead of the client's `onprogress`.
 */

/** One progress notification or response seen on the wire. */
export type WireEntry = { kind: 'progress'; token: string | number; progress: number; message?: string } | { kind: 'response'; id: string | number };

/** The recorded traffic of one transport. */
export interface WireLog {
  entries: WireEntry[];
  /** The progress notifications of the request with id `token`, then its response, in arrival order. */
  of(token: string | number): string[];
}

interface MessageTransport {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
}

/** Records `transport`'s incoming progress notifications and responses (call after `client.connect`). */
export function recordWire(transport: MessageTransport): WireLog {
  const entries: WireEntry[] = [];
  const handle = transport.onmessage;
  if (!handle) throw new Error('recordWire needs a connected transport');
  transport.onmessage = ((message: Record<string, unknown>, extra?: unknown) => {
    if (message.method === 'notifications/progress') {
      const params = message.params as { progressToken: string | number; progress: number; message?: string };
      entries.push({ kind: 'progress', token: params.progressToken, progress: params.progress, ...(params.message === undefined ? {} : { message: params.message }) });
    } else if (message.id !== undefined && (message.result !== undefined || message.error !== undefined)) {
      entries.push({ kind: 'response', id: message.id as string | number });
    }
    (handle as (message: unknown, extra?: unknown) => void)(message, extra);
  }) as never;
  return {
    entries,
    of(token) {
      return entries
        .filter((entry) => (entry.kind === 'progress' ? entry.token === token : entry.id === token))
        .map((entry) => (entry.kind === 'progress' ? `${entry.progress}: ${entry.message ?? ''}` : 'response'));
    },
  };
}

/** The token of the last request that received progress (the SDKs use the request id). */
export function lastProgressToken(log: WireLog): string | number {
  const last = log.entries.findLast((entry) => entry.kind === 'progress');
  if (!last || last.kind !== 'progress') throw new Error('no progress notification arrived');
  return last.token;
}
