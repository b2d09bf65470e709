/**
 * The per-token rate limit (`ORG_RATE_LIMIT` requests a minute; per client address for
 * requests without a token), through `@fastify/rate-limit`. On a filesystem home the
 * plugin counts in memory; when instances share a store, they count in its shared
 * counter, so a token gets the limit once however a load balancer spreads its requests.
 */
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { RateCounter } from '../../core/auth/index.js';
import { OrgError } from '../../core/errors.js';
import { bearerHashOf } from '../access.js';

/** The window of the limit. */
const WINDOW_MS = 60_000;

/** Options of {@link registerRateLimit}. */
export interface RateLimitOptions {
  /** Requests allowed per key and window. */
  max: number;
  /** The counter shared by instances; absent: each instance counts in memory. */
  counter?: RateCounter;
}

/** The plugin's store over a shared counter (the same one for every route). */
function sharedStore(counter: RateCounter): new () => FastifyRateLimitStore {
  return class SharedRateStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      counter.hit(key, timeWindow).then(
        (count) => callback(null, { current: count.count, ttl: count.ttlMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/** Registers the limit on every route. */
export async function registerRateLimit(server: FastifyInstance, options: RateLimitOptions): Promise<void> {
  await server.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: WINDOW_MS,
    ...(options.counter
      ? {
          store: sharedStore(options.counter),
          // A database that cannot be reached does not turn every request into an error
          // here: requests that need the database fail with their own 503.
          skipOnError: true,
        }
      : {}),
    keyGenerator: (request) => {
      const hash = bearerHashOf(request);
      return hash ? `t:${hash}` : `ip:${request.ip}`;
    },
    errorResponseBuilder: (_request, context) =>
      new OrgError('rate_limited', `rate limit of ${context.max} requests a minute exceeded; retry in ${context.after}`, {
        retryAfter: Math.ceil(context.ttl / 1000),
      }),
  });
}
