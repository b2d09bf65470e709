/**
 * The limits on client connections of `org serve` (issue 28, finding 6): how long a client
 * may take to send a request, and how many connections it may hold. Without them a client
 * that trickles its headers or body — no token needed — holds a connection for as long
 * as it likes, and enough of them exhaust the process's file descriptors (health stops
 * answering, state writes fail). Each limit is a named default with its reason; the ones
 * operators need to change are options, merged here by `resolveConfig`.
 */
import { invalid } from './errors.js';

/** The connection limits of an instance. */
export interface ConnectionLimits {
  /**
   * Time a client has to send its request line and headers, in ms (`--headers-timeout`
   * seconds, `ORG_HEADERS_TIMEOUT`; default {@link HEADERS_TIMEOUT_MS}).
   */
  headersTimeoutMs: number;
  /**
   * Time a client has to send a whole request, body included, in ms (`--request-timeout`
   * seconds, `ORG_REQUEST_TIMEOUT`; default {@link REQUEST_TIMEOUT_MS}). It bounds the
   * arrival of the request only: an answer streamed for minutes (SSE) is never cut by it.
   */
  requestTimeoutMs: number;
  /** Connections open at once, all clients together (`--max-connections`, `ORG_MAX_CONNECTIONS`; default {@link MAX_CONNECTIONS}). */
  maxConnections: number;
  /**
   * Connections one client address may hold at once (`--max-connections-per-address`,
   * `ORG_MAX_CONNECTIONS_PER_ADDRESS`; default {@link MAX_CONNECTIONS_PER_ADDRESS}); the
   * trusted proxies (`--trust-proxy`) carry many clients and count against the total only.
   */
  maxConnectionsPerAddress: number;
}

/**
 * Headers arrive in one or two packets from any real client; 10 s leaves room for a slow
 * mobile link and closes a connection that drips them (Node's default is 60 s).
 */
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * The largest body (25 MiB, API.md §6) arrives in 120 s at about 1.7 Mbit/s; a body slower
 * than that is closed with its connection. Fastify turns Node's own bound off by default.
 */
export const REQUEST_TIMEOUT_MS = 120_000;

/**
 * Far below the usual descriptor limits (1,024 soft on many systems is the lowest met;
 * state files, the skill watcher and database connections need theirs too), and above the
 * 500 concurrent streams the soak bench holds.
 */
export const MAX_CONNECTIONS = 900;

/**
 * A browser opens 6 connections to a host, the CLI one or two, an MCP client a few; 128
 * leaves room for scripts and a shared NAT address while keeping one address from taking
 * the whole server.
 */
export const MAX_CONNECTIONS_PER_ADDRESS = 128;

/** Flags of `org serve` that set connection limits. */
export interface ConnectionFlags {
  headersTimeout?: string | number;
  requestTimeout?: string | number;
  maxConnections?: string | number;
  maxConnectionsPerAddress?: string | number;
}

/** A whole number from 1 to `max`. */
function parseCount(raw: string | number, source: string, max: number): number {
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max || (typeof raw === 'string' && raw.trim() === '')) {
    throw invalid(`${source} must be a whole number from 1 to ${max}, got "${raw}"`);
  }
  return value;
}

/** Seconds (fractions allowed) within [min, max], as ms. */
function parseSeconds(raw: string | number, source: string, min: number, max: number): number {
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(value) || value < min || value > max || (typeof raw === 'string' && raw.trim() === '')) {
    throw invalid(`${source} must be from ${min} to ${max} seconds, got "${raw}"`);
  }
  return Math.round(value * 1000);
}

/** The connection limits of flags over environment over defaults; throws naming the bad flag or variable. */
export function resolveConnectionLimits(flags: ConnectionFlags, env: NodeJS.ProcessEnv): ConnectionLimits {
  const pick = (flag: string | number | undefined, name: string, option: string): [string | number | undefined, string] =>
    flag === undefined ? [env[name], name] : [flag, option];
  const [headers, headersSource] = pick(flags.headersTimeout, 'ORG_HEADERS_TIMEOUT', '--headers-timeout');
  const [request, requestSource] = pick(flags.requestTimeout, 'ORG_REQUEST_TIMEOUT', '--request-timeout');
  const [total, totalSource] = pick(flags.maxConnections, 'ORG_MAX_CONNECTIONS', '--max-connections');
  const [perAddress, perAddressSource] = pick(flags.maxConnectionsPerAddress, 'ORG_MAX_CONNECTIONS_PER_ADDRESS', '--max-connections-per-address');
  const limits: ConnectionLimits = {
    headersTimeoutMs: headers === undefined ? HEADERS_TIMEOUT_MS : parseSeconds(headers, headersSource, 0.05, 600),
    requestTimeoutMs: request === undefined ? REQUEST_TIMEOUT_MS : parseSeconds(request, requestSource, 0.05, 3600),
    maxConnections: total === undefined ? MAX_CONNECTIONS : parseCount(total, totalSource, 1_000_000),
    maxConnectionsPerAddress: perAddress === undefined ? MAX_CONNECTIONS_PER_ADDRESS : parseCount(perAddress, perAddressSource, 1_000_000),
  };
  // Node refuses a headers timeout longer than the request's (the headers are part of it).
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw invalid(`the headers timeout (${limits.headersTimeoutMs / 1000} s) cannot be longer than the request timeout (${limits.requestTimeoutMs / 1000} s)`);
  }
  return limits;
}
