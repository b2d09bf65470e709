import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import { describe, expect, it } from 'vitest';
import { buildOnFirstUse, createSerializerCompiler, withoutUnions } from './serialization.js';

describe('response serializers built on first use', () => {
  it('builds nothing until the first response, then reuses what it built', () => {
    let builds = 0;
    const serialize = buildOnFirstUse(() => {
      builds++;
      return (data) => JSON.stringify(data);
    });
    expect(builds).toBe(0);
    expect(serialize({ a: 1 })).toBe('{"a":1}');
    expect(serialize({ a: 2 })).toBe('{"a":2}');
    expect(builds).toBe(1);
  });

  it('serialises by the schema (undeclared members dropped) with unions left to JSON', () => {
    const schema = { type: 'object', properties: { id: { type: 'string' }, event: { anyOf: [{ type: 'string' }, { type: 'number' }] } } };
    const compile = createSerializerCompiler();
    const serialize = compile({ schema, method: 'GET', url: '/x', httpStatus: '200' } as FastifyRouteSchemaDef<unknown>) as (data: unknown) => string;
    expect(JSON.parse(serialize({ id: 'a', event: { type: 'text' }, secret: 'x' }))).toEqual({ id: 'a', event: { type: 'text' } });
    expect(withoutUnions(schema)).toEqual({ type: 'object', properties: { id: { type: 'string' }, event: {} } });
  });
});
