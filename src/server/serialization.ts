/**
 * The response serializer compiler: fast-json-stringify, as Fastify's default, with one
 * change. A union (`anyOf`/`oneOf`) in a response schema would make fast-json-stringify
 * validate every value against each branch to pick one; the only unions left in org's
 * response schemas are chat events (one branch per event type), and a history page
 * holds hundreds of them. Those nodes are written with `JSON.stringify` instead: the
 * values are the core's typed records, and the OpenAPI document keeps the full union.
 *
 * Each serializer is built on the route's first response, not when the server starts
 * (building them all delayed `org serve`'s listening by about a second).
 */
import type { FastifyReply, FastifySerializerCompiler } from 'fastify';
import fastJsonStringify, { type AnySchema } from 'fast-json-stringify';
import { shareBody } from './http/compressed-bodies.js';

/** A copy of `schema` in which every union node is an empty schema (any JSON). */
export function withoutUnions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutUnions);
  if (schema === null || typeof schema !== 'object') return schema;
  const node = schema as Record<string, unknown>;
  if (node.anyOf !== undefined || node.oneOf !== undefined) return node.description === undefined ? {} : { description: node.description };
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withoutUnions(value)]));
}

/** A serializer built by `build` on its first call. */
export function buildOnFirstUse(build: () => (data: unknown) => string): (data: unknown) => string {
  let built: ((data: unknown) => string) | undefined;
  return (data) => (built ??= build())(data);
}

/** fast-json-stringify over each response schema with its unions dropped (see the module comment). */
export function createSerializerCompiler(): FastifySerializerCompiler<unknown> {
  return ({ schema }) => buildOnFirstUse(() => fastJsonStringify(withoutUnions(schema) as AnySchema));
}

/**
 * Sends JSON that the core already serialised (and cached) for a schema-typed route, as
 * UTF-8 bytes. Fastify writes a Buffer payload as it is, without running the route's
 * response serializer; the bytes must be a document of the route's 200 schema. The
 * Buffer is the core's cached copy, sent again unchanged: its compressed copies are kept
 * beside it (see `compressed-bodies.ts`).
 */
export function sendJsonBytes(reply: FastifyReply, json: Buffer): void {
  reply.type('application/json; charset=utf-8').send(shareBody(json));
}
