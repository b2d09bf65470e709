/**
 * The rate limits (API.md §8, issue 28 finding 9). Every request of every route is
 * counted once, in one of three windows of a minute:
 *
 * - an authenticated request under its token (`ORG_RATE_LIMIT`, default 1,200);
 * - a request without a principal (a public route) under its client address, with the
 *   same limit;
 * - a request whose authentication failed (no token, an unknown or revoked one) under its
 *   client address, with the much lower `ORG_AUTH_FAILURE_LIMIT` (default 60): past it
 *   the address gets 429 instead of 401 until its window ends.
 *
 * The client address is the one `--trust-proxy` makes it (Fastify's `request.ip`). Only
 * tokens that authenticated ever get a window, so no number of made-up tokens can push
 * a real token's window out of the bounded in-memory cache (they are counted per address
 * instead, in a cache of their own); a real client sharing an address with a guesser
 * keeps being served, since its own requests authenticate.
 *
 * Answers carry `X-RateLimit-Limit`, `-Remaining` and `-Reset`; a refusal is 429
 * `rate_limited` with `Retry-After`. On a filesystem home the counts are kept in memory
 * and answered at once (the hooks finish without a promise); instances sharing a store
 * count in its shared counter, so a token or an address gets the limit once however a
 * load balancer spreads its requests.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { MemoryRateCounter, type RateCount, type RateCounter } from '../../core/auth/index.js';
import { OrgError } from '../../core/errors.js';
import { errorFields } from '../../core/util/index.js';
import { bearerHashOf } from '../access.js';

/** The window of the limits. */
const WINDOW_MS = 60_000;

/** Options of {@link registerRateLimit}. */
export interface RateLimitOptions {
  /** Requests allowed per token (or per address without one) and window. */
  max: number;
  /** Failed authentications allowed per client address and window. */
  authFailures: number;
  /** The counter shared by instances; absent: this instance counts in memory. */
  counter?: RateCounter;
}

/**
 * What the access layer calls when a request failed authentication: hands `done` the
 * refusal to answer with, `unauthorized` itself or, past the address's limit, 429.
 */
export type AuthFailureHook = (request: FastifyRequest, reply: FastifyReply, unauthorized: Error, done: (error: Error) => void) => void;

/** "59 seconds", "1 second". */
function seconds(count: number): string {
  return count === 1 ? '1 second' : `${count} seconds`;
}

/** Counts kept in this process: one bounded cache per kind of key, so one kind cannot evict another. */
interface LocalCounters {
  tokens: MemoryRateCounter;
  addresses: MemoryRateCounter;
  failures: MemoryRateCounter;
}

/** The three kinds of window. */
type Kind = keyof LocalCounters;

/** The key of a window in a shared counter (all kinds in one table, told apart by prefix). */
function sharedKey(kind: Kind, id: string): string {
  return kind === 'tokens' ? `t:${id}` : kind === 'addresses' ? `ip:${id}` : `fail:${id}`;
}

/**
 * Sends a count's headers on the reply; answers the refusal when the count is past
 * `max`, otherwise undefined.
 */
function applyCount(reply: FastifyReply, max: number, count: RateCount, refusal: (retry: number) => string): OrgError | undefined {
  const reset = Math.max(0, Math.ceil(count.ttlMs / 1000));
  reply.header('x-ratelimit-limit', max);
  reply.header('x-ratelimit-reset', reset);
  if (count.count <= max) {
    reply.header('x-ratelimit-remaining', max - count.count);
    return undefined;
  }
  reply.header('x-ratelimit-remaining', 0);
  const retryAfter = Math.max(1, reset);
  return new OrgError('rate_limited', refusal(retryAfter), { retryAfter });
}

/** Counts one request of `kind` for `id`, at once in memory or through the shared counter. */
type Count = (request: FastifyRequest, kind: Kind, id: string, then: (count: RateCount | undefined) => void) => void;

function localCount(counters: LocalCounters): Count {
  return (_request, kind, id, then) => then(counters[kind].count(id, WINDOW_MS));
}

/**
 * Counting through a shared counter. A store that cannot be reached does not turn every
 * request into an error here: requests that need the store fail with their own 503.
 */
function sharedCount(counter: RateCounter): Count {
  return (request, kind, id, then) => {
    counter.hit(sharedKey(kind, id), WINDOW_MS).then(then, (error: unknown) => {
      request.log.warn({ ...errorFields(error) }, 'rate limit: the shared counter could not be reached; request not counted');
      then(undefined);
    });
  };
}

/**
 * Registers the limits on every route (registered before the routes it counts) and
 * returns the hook the access layer calls on a failed authentication.
 */
export function registerRateLimit(server: FastifyInstance, options: RateLimitOptions): AuthFailureHook {
  const count = options.counter
    ? sharedCount(options.counter)
    : localCount({ tokens: new MemoryRateCounter(), addresses: new MemoryRateCounter(), failures: new MemoryRateCounter() });
  const tooMany = (retry: number) => `rate limit of ${options.max} requests a minute exceeded; retry in ${seconds(retry)}`;
  const tooManyFailures = (retry: number) =>
    `too many requests with a missing, unknown or revoked token from this address (${options.authFailures} a minute); retry in ${seconds(retry)}`;

  // A route's own preParsing hooks run after the server's, so authentication (the access
  // layer's preParsing hook) has already named the principal, if any, when this counts.
  const hook: preParsingHookHandler = (request, reply, payload, done) => {
    const principal = request.principal;
    const hash = principal ? bearerHashOf(request) : undefined;
    const [kind, id] = hash ? (['tokens', hash] as const) : (['addresses', request.ip] as const);
    count(request, kind, id, (counted) => done(counted ? applyCount(reply, options.max, counted, tooMany) ?? null : null, payload));
  };
  server.addHook('onRoute', (route) => {
    const own = route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing];
    route.preParsing = [hook, ...own];
  });

  return (request, reply, unauthorized, done) => {
    count(request, 'failures', request.ip, (counted) => done((counted ? applyCount(reply, options.authFailures, counted, tooManyFailures) : undefined) ?? unauthorized));
  };
}
