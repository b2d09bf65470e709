/**
 * Request generators for the API fuzzer, driven by the OpenAPI document: for every
 * operation, path parameters, query strings, headers and bodies that are sometimes valid
 * (built from the operation's JSON schema and from ids that exist, so requests get past
 * validation and reach the handlers) and often hostile (wrong types, missing members,
 * prototype names, path tricks, control characters, huge and deeply nested values, bodies
 * that are not JSON, other content types).
 */
import fc from 'fast-check';
import { inboundHeaders } from '../../src/core/inbound/signature.js';

/** The part of a JSON schema the generators understand (everything else is treated as "any"). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
}

/** One operation of the OpenAPI document. */
export interface Operation {
  method: string;
  path: string;
  params: { in: string; name: string; schema: JsonSchema; required: boolean }[];
  body?: { contentType: string; schema: JsonSchema };
}

/** A request to send with `inject`. */
export interface FuzzRequest {
  /** The operation it was made for (`/api/org/structures/{structure_id}`). */
  operation: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** Known-good values per member or parameter name, so generated requests reach past validation. */
export type ValuePool = Record<string, unknown[]>;

/** Credentials the fuzzer picks from (`undefined`: no Authorization header). */
export interface Credentials {
  /** Authorization headers; the first `actors` may act (owner, administrator, node key…). */
  tokens: (string | undefined)[];
  actors: number;
  /** Signs inbound webhook bodies (`X-Org-Signature`). */
  inboundSecret: string;
}

/** Reads the operations of an OpenAPI 3.1 document. */
export function operationsOf(doc: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      if (method === 'head') continue;
      const op = raw as { parameters?: Operation['params']; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } };
      const content = op.requestBody?.content ?? {};
      const [contentType] = Object.keys(content);
      out.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p) => ({ in: p.in, name: p.name, schema: p.schema ?? {}, required: Boolean(p.required) })),
        ...(contentType ? { body: { contentType, schema: content[contentType]?.schema ?? {} } } : {}),
      });
    }
  }
  return out;
}

const NASTY = [
  '', ' ', '.', '..', '../../etc/passwd', '..%2F..%2Fetc', '%00', '\u0000', 'a\u0000b', '\r\nX-Injected: 1', '__proto__', 'constructor', 'toString',
  'hasOwnProperty', 'prototype', '{}', '[]', 'null', 'undefined', 'NaN', '-1', '0', '1e309', '99999999999999999999', 'true', '<script>alert(1)</script>',
  "'; DROP TABLE x; --", '${7*7}', '{{7*7}}', '😀', '\u202e', '\uffff', '\ud800', 'Ω≈ç√', 'COM1', '/', '\\', '~', '*', '?', '#', '%', '%ZZ', 'org_u_', 'org_mcp_x',
];

/** Strings meant to break things: edge cases, random unicode, very long ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 65, max: 70_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.uuid() },
);

/** A value nested `depth` levels deep (objects or arrays). */
const deep = fc.tuple(fc.integer({ min: 20, max: 1000 }), fc.boolean()).map(([depth, arrays]) => {
  let value: unknown = 'x';
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { a: value };
  return value;
});

/** Any JSON value, including odd ones. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -0, [], {}) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('constructor', 'toString', 'valueOf', 'hasOwnProperty', 'a', 'b'), fc.jsonValue({ maxDepth: 2 })) },
);

const SAFE_URL = 'http://127.0.0.1:9/unreachable';

/** A value that satisfies `schema` (as far as the generator can tell), using the pool for known names. */
export function validValue(schema: JsonSchema, name: string | undefined, pool: ValuePool, depth = 0): fc.Arbitrary<unknown> {
  const known = name ? pool[name] : undefined;
  if (known && known.length > 0) return fc.constantFrom(...known);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union && union.length > 0) return fc.oneof(...union.map((s) => validValue(s, name, pool, depth)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'email') return fc.emailAddress();
      if (schema.format === 'uri' || schema.format === 'url') return fc.constant(SAFE_URL);
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? 64));
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) });
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(validValue(schema.items ?? {}, undefined, pool, depth + 1), { maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object': {
      if (depth > 3) return fc.constant({});
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const members = Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, validValue(s, key, pool, depth + 1)]));
      return fc.record(members, { requiredKeys: [...required].filter((key) => key in members) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body for `schema`: valid, valid with one member broken, or anything at all. */
function bodyValue(schema: JsonSchema, pool: ValuePool): fc.Arbitrary<unknown> {
  const valid = validValue(schema, undefined, pool);
  const broken = fc.tuple(valid, fc.constantFrom(...Object.keys(schema.properties ?? { x: {} })), hostileJson, fc.boolean()).map(([value, key, bad, drop]) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    if (drop) delete copy[key];
    else copy[key] = bad;
    return copy;
  });
  // A hostile member planted in a nested object (front matter, for example), the rest valid.
  const planted = fc.tuple(valid, fc.nat(), fc.constantFrom('extra', 'constructor', 'toString', 'valueOf', 'notes'), hostileJson).map(([value, pick, key, bad]) => {
    const objects: Record<string, unknown>[] = [];
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      if (!Array.isArray(node)) objects.push(node as Record<string, unknown>);
      for (const child of Object.values(node)) walk(child);
    };
    walk(value);
    const target = objects[pick % Math.max(objects.length, 1)];
    if (target) target[key] = bad;
    return value;
  });
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 3, arbitrary: broken }, { weight: 2, arbitrary: planted }, { weight: 2, arbitrary: hostileJson });
}

/** A serialised body: JSON text (sometimes with raw `__proto__` keys), or bytes that are not JSON. */
function payloadOf(schema: JsonSchema, pool: ValuePool): fc.Arbitrary<string | Buffer> {
  const json = bodyValue(schema, pool).map((value) => JSON.stringify(value) ?? 'null');
  return fc.oneof(
    { weight: 8, arbitrary: json },
    { weight: 1, arbitrary: json.map((text) => (text.startsWith('{') && text.length > 2 ? `{"__proto__":{"x":1},${text.slice(1)}` : text)) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '{"a":', 'nul', '[1,', '\u0000', '{"a":1}{"b":2}', '\ufeff{}', '{"a":"\ud800"}') },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 300_000 }).map((n) => `{"x":"${'y'.repeat(n)}"}`) },
    // Nesting far deeper than any serialiser could produce, as text.
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1000, max: 200_000 }), fc.boolean()).map(([n, arrays]) => (arrays ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`)) },
  );
}

/** `encodeURIComponent` that takes any string (a lone surrogate becomes U+FFFD instead of throwing). */
function enc(text: string): string {
  return encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
}

/** Encodes a path segment: usually percent-encoded, sometimes raw, sometimes with a broken escape. */
const segment = (value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(value, fc.integer({ min: 0, max: 9 })).map(([text, roll]) => {
    if (roll === 0) return `${enc(text)}%`;
    if (roll === 1) return enc(text).replace(/%2F/g, '/').replace(/%25/g, '%');
    return enc(text);
  });

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'message/rfc822', 'application/octet-stream', 'application/json; charset=latin1', 'APPLICATION/JSON', '*/*', ';;;', 'application/problem+json'];

/** Requests for one operation: about a third well-formed (to reach the handlers), the rest hostile. */
export function requestsFor(op: Operation, pool: ValuePool, credentials: Credentials): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ weight: 1, arbitrary: wellFormed(op, pool, credentials) }, { weight: 2, arbitrary: hostile(op, pool, credentials) });
}

/** Fills the path template. */
function fillPath(op: Operation, values: string[]): string {
  let url = op.path;
  op.params.filter((p) => p.in === 'path').forEach((p, i) => {
    url = url.replace(`{${p.name}}`, values[i] ?? '');
  });
  return url;
}

/** A small RFC 5322 message to `to`. */
function email(to: string, text: string): string {
  return [`From: Sender <sender@example.com>`, `To: ${to}`, 'Subject: Fuzzed', 'Message-ID: <fuzz@example.com>', 'Content-Type: text/plain; charset=utf-8', '', text.replace(/[\r\n]+/g, ' '), ''].join('\r\n');
}

/** The signature headers of an inbound webhook request (Standard Webhooks: id, timestamp, signature). */
function sign(secret: string, body: string | Buffer | null): Record<string, string> {
  return inboundHeaders(secret, body ?? '');
}

/** Requests built from the schemas and real ids, with a token that may act. */
function wellFormed(op: Operation, pool: ValuePool, credentials: Credentials): fc.Arbitrary<FuzzRequest> {
  const asText = (name: string, schema: JsonSchema) => validValue(schema, name, pool).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  return fc
    .record({
      path: fc.tuple(...pathParams.map((p) => asText(p.name, p.schema).map(enc))),
      query: fc.tuple(...queryParams.map((p) => (p.required ? asText(p.name, p.schema) : fc.option(asText(p.name, p.schema), { freq: 3 })))),
      body: op.body
        ? validValue(op.body.schema, undefined, pool).map((value) => JSON.stringify(value) ?? 'null')
        : op.path === '/api/org/inbound/email'
          ? fc.tuple(fc.constantFrom(...(pool.address ?? ['nobody@localhost'])), hostileString).map(([to, text]) => email(String(to), text))
          : fc.constant(null),
      token: fc.constantFrom(...credentials.tokens.slice(0, credentials.actors)),
    })
    .map(({ path, query, body, token }) => {
      const pairs = queryParams.flatMap((p, i) => (query[i] === null || query[i] === undefined ? [] : [`${enc(p.name)}=${enc(query[i])}`]));
      const headers: Record<string, string> = {};
      if (token !== undefined) headers.authorization = token;
      if (body !== null) headers['content-type'] = op.body?.contentType ?? (op.path === '/api/org/inbound/email' ? 'message/rfc822' : 'application/json');
      if (op.path.startsWith('/api/org/inbound')) Object.assign(headers, sign(credentials.inboundSecret, body));
      return {
        operation: op.path,
        method: op.method,
        url: `${fillPath(op, path)}${pairs.length > 0 ? `?${pairs.join('&')}` : ''}`,
        headers,
        ...(body === null ? {} : { payload: body }),
      };
    });
}

/** Requests with hostile parts anywhere. */
function hostile(op: Operation, pool: ValuePool, credentials: Credentials): fc.Arbitrary<FuzzRequest> {
  const paramValue = (name: string, schema: JsonSchema): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 5, arbitrary: validValue(schema, name, pool).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) },
      { weight: 3, arbitrary: hostileString },
    );
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const path = fc.tuple(...pathParams.map((p) => segment(paramValue(p.name, p.schema)))).map((values) => fillPath(op, values));
  const query = fc
    .tuple(
      fc.array(fc.constantFrom(...queryParams.map((p) => p.name), 'structure_id', 'role_id', '__proto__', 'constructor', 'x[y]', 'limit'), { maxLength: 4 }),
      fc.array(hostileString, { minLength: 4, maxLength: 4 }),
      fc.tuple(...queryParams.map((p) => paramValue(p.name, p.schema))),
      fc.integer({ min: 0, max: 3 }),
    )
    .map(([extra, values, own, roll]) => {
      const pairs: [string, string][] = [];
      queryParams.forEach((p, i) => {
        if (p.required || roll > 0) pairs.push([p.name, own[i] ?? '']);
      });
      extra.forEach((name, i) => pairs.push([name, values[i] ?? '']));
      if (pairs.length === 0) return '';
      return `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}`;
    });
  const payload = op.body ? fc.option(payloadOf(op.body.schema, pool), { freq: 8 }) : fc.option(fc.oneof(payloadOf({}, pool), fc.constant('{}')), { freq: 1 });
  const headers = fc.record({
    token: fc.constantFrom(...credentials.tokens),
    contentType: fc.oneof({ weight: 6, arbitrary: fc.constant(op.body?.contentType ?? 'application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
    signature: fc.constantFrom('good', 'bad', 'none'),
    extra: fc.array(fc.tuple(fc.constantFrom('last-event-id', 'if-match', 'if-none-match', 'accept', 'x-request-id', 'origin', 'accept-encoding', 'expect', 'x-forwarded-for'), hostileString), { maxLength: 3 }),
  });
  const method = fc.oneof({ weight: 19, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') });
  return fc.record({ method, path, query, payload, headers }).map(({ method: verb, path: url, query: q, payload: body, headers: h }) => {
    const out: Record<string, string> = {};
    if (h.token !== undefined) out.authorization = h.token;
    if (body !== null) out['content-type'] = h.contentType;
    if (h.signature === 'good') Object.assign(out, sign(credentials.inboundSecret, body));
    else if (h.signature !== 'none') out['x-org-signature'] = 'sha256=00';
    for (const [name, value] of h.extra) out[name] = value.replace(/[^\x20-\x7e]/g, '?');
    return { operation: op.path, method: verb, url: `${url}${q}`, headers: out, ...(body === null ? {} : { payload: body }) };
  });
}
