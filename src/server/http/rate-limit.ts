/**
 * The per-token rate limit (`ORG_RATE_LIMIT` requests a minute; per client address for
 * requests without a token). Every request of every route is counted and its answer
 * carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; the
 * request past the limit is refused with 429 `rate_limited` and `Retry-After`.
 *
 * On a filesystem home the count is kept in memory and answered at once, so the hook
 * finishes without a promise (it runs on every request; `@fastify/rate-limit`'s async
 * hook, used before, cost a request several turns of the microtask queue). When
 * instances share a store, they count in its shared counter, so a token gets the limit
 * once however a load balancer spreads its requests.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { MemoryRateCounter, type RateCount, type RateCounter } from '../../core/auth/index.js';
import { OrgError } from '../../core/errors.js';
import { errorFields } from '../../core/util/index.js';
import { bearerHashOf } from '../access.js';

/** The window of the limit. */
const WINDOW_MS = 60_000;

/** Options of {@link registerRateLimit}. */
export interface RateLimitOptions {
  /** Requests allowed per key and window. */
  max: number;
  /** The counter shared by instances; absent: this instance counts in memory. */
  counter?: RateCounter;
}

/** The key a request is counted under: its token's hash, or the client's address. */
function keyOf(request: FastifyRequest): string {
  const hash = bearerHashOf(request);
  return hash ? `t:${hash}` : `ip:${request.ip}`;
}

/** "59 seconds", "1 second". */
function seconds(count: number): string {
  return count === 1 ? '1 second' : `${count} seconds`;
}

/**
 * Sends a count's headers on the reply; answers the refusal when the count is past
 * `max`, otherwise undefined.
 */
function applyCount(reply: FastifyReply, max: number, count: RateCount): OrgError | undefined {
  const reset = Math.max(0, Math.ceil(count.ttlMs / 1000));
  reply.header('x-ratelimit-limit', max);
  reply.header('x-ratelimit-reset', reset);
  if (count.count <= max) {
    reply.header('x-ratelimit-remaining', max - count.count);
    return undefined;
  }
  reply.header('x-ratelimit-remaining', 0);
  return new OrgError('rate_limited', `rate limit of ${max} requests a minute exceeded; retry in ${seconds(Math.max(1, reset))}`, {
    retryAfter: Math.max(1, reset),
  });
}

/** The limit's hook over an in-memory counter: counted and answered at once. */
function localHook(max: number, counter: MemoryRateCounter): onRequestHookHandler {
  return (request, reply, done) => {
    done(applyCount(reply, max, counter.count(keyOf(request), WINDOW_MS)));
  };
}

/**
 * The limit's hook over a shared counter. A store that cannot be reached does not turn
 * every request into an error here: requests that need the store fail with their own 503.
 */
function sharedHook(max: number, counter: RateCounter): onRequestHookHandler {
  return (request, reply, done) => {
    counter.hit(keyOf(request), WINDOW_MS).then(
      (count) => done(applyCount(reply, max, count)),
      (error: unknown) => {
        request.log.warn({ ...errorFields(error) }, 'rate limit: the shared counter could not be reached; request not counted');
        done();
      },
    );
  };
}

/** Registers the limit on every route (registered before the routes it counts). */
export function registerRateLimit(server: FastifyInstance, options: RateLimitOptions): void {
  const hook = options.counter ? sharedHook(options.max, options.counter) : localHook(options.max, new MemoryRateCounter());
  server.addHook('onRoute', (route) => {
    route.onRequest = route.onRequest === undefined ? [hook] : [...(Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]), hook];
  });
}
