/**
 * The scope of a request: which structure (and node) it may touch. Every route declares
 * the one place its scope comes from (`config.access`); the access layer resolves it
 * once, authorizes it, and hands it to the handler as `request.scope`. Handlers never
 * read `structure_id` or `role_id` from the request themselves.
 *
 * So that an id in another place can never be mistaken for the authorized one, a
 * request that names `structure_id` (or `role_id`) in two places with different values
 * is refused with 400 before anything else looks at it, whatever the route.
 */
import type { FastifyRequest } from 'fastify';
import type { Grant } from '../core/auth/index.js';
import { invalid, type FieldError } from '../core/errors.js';

/** Where a scope id is read from: the path, the query string or the JSON body. */
export type ScopePlace = 'params' | 'query' | 'body';

/** Request members that name a scope: handlers read them from `request.scope`, never from the request itself. */
export const SCOPE_IDS = ['structure_id', 'role_id'] as const;
export type ScopeId = (typeof SCOPE_IDS)[number];

const PLACES: readonly ScopePlace[] = ['params', 'query', 'body'];
const PLACE_WORDS: Record<ScopePlace, string> = { params: 'path', query: 'query string', body: 'body' };

/** The resolved, authorized scope of a structure-scoped request. */
export interface StructureScope {
  structureId: string;
  /** The node the request is about, when the route declares one. */
  roleId?: string;
  /** What the caller may do there. */
  grant: Grant;
}

/** A structure scope narrowed to one node, for routes that name a `role_id`. */
export interface NodeScope extends StructureScope {
  roleId: string;
}

/** The scope of a run route: the run's own structure and node. */
export interface RunScope extends NodeScope {
  runId: string;
  nodeId: string;
}

/** The values a request gives for `name` in `place` (arrays when repeated in a query string). */
function valuesIn(source: unknown, name: ScopeId): string[] {
  if (!source || typeof source !== 'object' || Array.isArray(source) || Buffer.isBuffer(source)) return [];
  if (!Object.prototype.hasOwnProperty.call(source, name)) return [];
  const value = (source as Record<string, unknown>)[name];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/** How many values `source` gives for `name` (as `valuesIn` counts them), without building them. */
function countIn(source: unknown, name: ScopeId): number {
  if (!source || typeof source !== 'object' || Buffer.isBuffer(source) || Array.isArray(source)) return 0;
  if (!Object.prototype.hasOwnProperty.call(source, name)) return 0;
  const value = (source as Record<string, unknown>)[name];
  if (typeof value === 'string') return 1;
  return Array.isArray(value) ? value.length : 0;
}

/** Every place of the request that names `name`, with its value. */
export function occurrences(request: FastifyRequest, name: ScopeId): { place: ScopePlace; value: string }[] {
  const found: { place: ScopePlace; value: string }[] = [];
  for (const place of PLACES) {
    for (const value of valuesIn(request[place], name)) found.push({ place, value });
  }
  return found;
}

/**
 * Refuses a request that names the same scope id with different values in different
 * places (or twice in its query string). Runs on every request, before validation.
 */
export function assertOneScope(request: FastifyRequest): void {
  const errors: FieldError[] = [];
  const details: string[] = [];
  for (const name of SCOPE_IDS) {
    // Nearly every request names an id once or not at all: nothing to compare, nothing built.
    if (countIn(request.params, name) + countIn(request.query, name) + countIn(request.body, name) <= 1) continue;
    const found = occurrences(request, name);
    if (new Set(found.map((entry) => entry.value)).size <= 1) continue;
    for (const entry of found) errors.push({ path: `${placeName(entry.place)}.${name}`, message: `is ${quote(entry.value)}; it must be the same everywhere` });
    const named = found.map((entry) => `${quote(entry.value)} in the ${PLACE_WORDS[entry.place]}`).join(' but ');
    details.push(
      name === 'structure_id'
        ? `structure_id is ${named}: a request acts on one structure`
        : `role_id is ${named}: a request acts on one node (and a node's role_id cannot be changed)`,
    );
  }
  if (errors.length > 0) throw invalid(details.join('; '), errors);
}

/**
 * Refuses a request that names a scope id with a value other than the resolved one
 * (e.g. a `structure_id` in the query of a run route that belongs to another structure).
 */
export function assertMatches(request: FastifyRequest, name: ScopeId, resolved: string): void {
  // Runs on every scoped request: places that do not name the id build nothing.
  for (const place of PLACES) {
    if (countIn(request[place], name) === 0) continue;
    for (const value of valuesIn(request[place], name)) {
      if (value === resolved) continue;
      throw invalid(`${name} in the ${PLACE_WORDS[place]} is ${quote(value)}, not the ${name} this route acts on`, [
        { path: `${placeName(place)}.${name}`, message: 'does not match the resource of this route' },
      ]);
    }
  }
}

/** The value of a scope id in its declared place, after validation. */
export function declaredValue(request: FastifyRequest, place: ScopePlace, name: ScopeId): string | undefined {
  const source = request[place];
  if (countIn(source, name) === 0) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : valuesIn(source, name)[0];
}

function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

/** Names a place as problem details do (`querystring.structure_id`, `body.role_id`). */
export function placeName(place: ScopePlace): string {
  return place === 'query' ? 'querystring' : place;
}

/** The resolved scope of a structure-scoped route; a programming error when absent. */
export function scopeOf(request: FastifyRequest): StructureScope {
  const scope = request.scope;
  if (!scope) throw new Error(`route ${request.routeOptions.url ?? ''} has no resolved scope`);
  return scope;
}

/** The resolved scope of a route that declares a node. */
export function nodeScopeOf(request: FastifyRequest): NodeScope {
  const scope = scopeOf(request);
  if (scope.roleId === undefined) throw new Error(`route ${request.routeOptions.url ?? ''} declares no node scope`);
  return scope as NodeScope;
}

/** The resolved scope of a run route. */
export function runScopeOf(request: FastifyRequest): RunScope {
  const scope = scopeOf(request) as Partial<RunScope>;
  if (scope.runId === undefined) throw new Error(`route ${request.routeOptions.url ?? ''} is not a run route`);
  return scope as RunScope;
}
