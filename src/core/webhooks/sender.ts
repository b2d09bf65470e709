/**
 * The HTTP side of a delivery: one signed POST through the egress gate, its answer or
 * failure, within a timeout.
 *
 * The delivery log is read by the structure's owners, who choose the URL: were it to say
 * how a connection failed (refused, reset, timed out, not HTTP), webhooks would scan the
 * ports of any address the gate allows. So an attempt without an answer says only
 * {@link NO_ANSWER} (or that the gate refused the address, which registration already
 * says), its duration is not given, and the cause goes to the server log for the operator.
 */
import type { Dispatcher } from 'undici';
import { egressRefusalOf } from '../egress/gate.js';
import { loadUndici } from '../util/undici.js';

/** What one attempt got. */
export interface AttemptResult {
  /** The receiver's status, or null when it never answered. */
  responseCode: number | null;
  /** Why there was no answer, as the delivery log says it. */
  error: string | null;
  /** How long the attempt took; 0 when there was no answer (see the header). */
  durationMs: number;
  /** The precise cause of a failure without an answer, for the server log only. */
  cause?: string;
}

/** Time allowed for the receiver to answer (headers and body), in ms. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** The delivery log's one word for every attempt that got no HTTP answer. */
export const NO_ANSWER = 'no answer from the receiver (connection failed, timed out or not HTTP; the server log has the cause)';

/** The delivery log's word for an attempt the egress gate refused. */
export const EGRESS_REFUSED = 'refused by the egress policy (see --allow-egress)';

/** POSTs `body` to `url` with the headers; a 2xx answer is a delivery. */
export async function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs?: number; dispatcher?: () => Promise<Dispatcher> } = {},
): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // Loaded before the attempt's time is taken: the first delivery of a run loads the client.
  const { request } = await loadUndici();
  const dispatcher = await options.dispatcher?.();
  const start = performance.now();
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'org-webhooks', ...headers },
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(dispatcher ? { dispatcher } : {}),
    });
    // The answer's body is not kept; reading (or dropping) it frees the connection.
    await response.body.dump({ limit: 64 * 1024 });
    return { responseCode: response.statusCode, error: null, durationMs: Math.round(performance.now() - start) };
  } catch (error) {
    const refused = egressRefusalOf(error);
    if (refused) return { responseCode: null, error: EGRESS_REFUSED, durationMs: 0, cause: refused.message };
    const err = error as { code?: string; message?: string };
    return { responseCode: null, error: NO_ANSWER, durationMs: 0, cause: err.code ?? err.message ?? 'request failed' };
  }
}
