/**
 * Readers of single configuration values (ports, counts, durations, URLs, origins, …): each
 * takes the raw flag or variable and the name to put in its message, and throws `invalid`
 * naming it when the value is not one.
 */
import { resolve } from 'node:path';
import { invalid } from './errors.js';

/**
 * The allowed CORS origins of flags over `ORG_CORS_ORIGINS`: each `scheme://host[:port]`
 * exactly as a browser sends it in `Origin` (no path, no trailing slash), or `*`.
 */
export function parseCorsOrigins(values: readonly string[], source: string): string[] {
  const origins: string[] = [];
  for (const raw of values.flatMap((value) => value.split(','))) {
    const value = raw.trim();
    if (value === '') continue;
    if (value !== '*') {
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      if (!url || !/^https?:$/.test(url.protocol) || url.origin !== value) {
        throw invalid(`${source}: "${value}" is not an origin; write it as scheme://host[:port], for example https://app.example.com`);
      }
    }
    if (!origins.includes(value)) origins.push(value);
  }
  return origins;
}

export function parsePort(raw: string | number, source: string): number {
  const port = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw invalid(`${source} must be an integer from 0 to 65535, got "${raw}"`);
  }
  return port;
}

export function parsePositive(raw: string | number, source: string): number {
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (typeof raw === 'string' && raw.trim() === '')) throw invalid(`${source} must be a positive number, got "${raw}"`);
  return value;
}

/** Bytes in a mebibyte. */
export const MIB = 1024 * 1024;

/** An authserv-id: a host name as mail servers name themselves (letters, digits, dots, hyphens). */
export function parseAuthservId(raw: string): string {
  if (!/^[a-z0-9.-]{1,253}$/i.test(raw)) throw invalid(`ORG_INBOUND_AUTHSERV_ID must be the relay's authserv-id, a host name such as mx.example.com, got "${raw}"`);
  return raw.toLowerCase();
}

/** A whole number within [min, max]. */
export function parseCount(raw: string | number, source: string, min: number, max: number): number {
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max || (typeof raw === 'string' && raw.trim() === '')) throw invalid(`${source} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}

/** Seconds within [min, max] (fractions allowed), as milliseconds. */
export function parseSeconds(raw: string | number, source: string, min: number, max: number): number {
  const value = parsePositive(raw, source);
  if (value < min || value > max) throw invalid(`${source} must be from ${min} to ${max} seconds, got "${raw}"`);
  return Math.round(value * 1000);
}

/** Webhook retry delays: seconds (fractions allowed, 0 to a day each), separated by commas, as ms. */
export function parseRetrySchedule(raw: string, source: string): number[] {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 20) throw invalid(`${source} can list at most 20 delays, got ${parts.length}`);
  return parts.map((part) => {
    const value = Number(part);
    if (part === '' || !Number.isFinite(value) || value < 0 || value > 86_400) throw invalid(`${source} must be delays in seconds (0 to 86400) separated by commas, got "${raw}"`);
    return Math.round(value * 1000);
  });
}

/** An absolute URL with one of `schemes` (without the colon). */
export function parseUrl(raw: string, source: string, schemes: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`${source} must be an absolute URL (${schemes.join(', ')}), got "${raw}"`);
  }
  if (!schemes.includes(url.protocol.slice(0, -1))) throw invalid(`${source} must use ${schemes.join(' or ')}, got "${url.protocol}"`);
  return raw;
}

/** `ORG_DELEGATION_DEPTH`: a whole number of hops from 0 to 16 (default 4). */
export function parseDepth(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 4;
  const depth = Number(value);
  if (!Number.isInteger(depth) || depth < 0 || depth > 16) throw invalid(`ORG_DELEGATION_DEPTH must be a whole number of hops from 0 to 16, got "${value}"`);
  return depth;
}

/**
 * A skills remote as git will be given it: URLs (`https://…`, `ssh://…`, `file://…`) and
 * scp-like `user@host:path` as written, anything else a local path made absolute (git
 * runs in the clone's folder, where a relative path would mean something else).
 */
export function remoteLocation(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^[^/\s]+@[^/\s]+:/.test(value)) return value;
  return resolve(value);
}

