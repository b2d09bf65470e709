import { Ajv } from 'ajv';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import { describe, expect, it } from 'vitest';
import { compileOnFirstUse, createValidatorCompiler } from './validation.js';

const route = (schema: object, httpPart: string): FastifyRouteSchemaDef<unknown> => ({ schema, httpPart, method: 'POST', url: '/x' });

describe('route validators compiled on first use', () => {
  it('compiles nothing until the first call, once, and carries the compiled errors', () => {
    let compiles = 0;
    const ajv = new Ajv({ allErrors: true });
    const validate = compileOnFirstUse(() => {
      compiles++;
      return ajv.compile({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    });
    expect(compiles).toBe(0);
    expect(validate({ n: 'x' })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/n', keyword: 'type' });
    expect(validate({ n: 1 })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(compiles).toBe(1);
  });

  it('checks JSON bodies strictly and coerces path and query text, as before', () => {
    const compile = createValidatorCompiler();
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const body = compile(route(schema, 'body')) as (data: unknown) => boolean;
    const query = compile(route(schema, 'querystring')) as (data: unknown) => boolean;
    expect(body({ n: '5' })).toBe(false);
    const text = { n: '5' };
    expect(query(text)).toBe(true);
    expect(text.n).toBe(5);
  });
});
