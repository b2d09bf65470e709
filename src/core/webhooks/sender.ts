/** The HTTP side of a delivery: one signed POST, its answer or failure, within a timeout. */
import { loadUndici } from '../util/undici.js';

/** What one attempt got. */
export interface AttemptResult {
  /** The receiver's status, or null when it never answered. */
  responseCode: number | null;
  /** Why there was no answer. */
  error: string | null;
  durationMs: number;
}

/** Time allowed for the receiver to answer (headers and body), in ms. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** POSTs `body` to `url` with the headers; a 2xx answer is a delivery. */
export async function postDelivery(url: string, headers: Record<string, string>, body: string, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<AttemptResult> {
  // Loaded before the attempt's time is taken: the first delivery of a run loads the client.
  const { request } = await loadUndici();
  const start = performance.now();
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'org-webhooks', ...headers },
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    // The answer's body is not kept; reading (or dropping) it frees the connection.
    await response.body.dump({ limit: 64 * 1024 });
    return { responseCode: response.statusCode, error: null, durationMs: Math.round(performance.now() - start) };
  } catch (error) {
    const err = error as { code?: string; message?: string };
    return { responseCode: null, error: err.code ?? err.message ?? 'request failed', durationMs: Math.round(performance.now() - start) };
  }
}
