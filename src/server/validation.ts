/**
 * Schema compilers: request bodies are validated strictly (no type coercion, so a
 * string is never silently taken for a number), query strings and path parameters
 * with coercion (they arrive as text). A body of another media type than JSON (the raw
 * e-mail of `message/rfc822`) is bytes the route itself parses: its schema documents it
 * and validates nothing.
 */
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives as the module namespace under NodeNext.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, removeAdditional: false, ...options });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv;
}

/** Ajv for every route: JSON bodies checked strictly, as sent; params, query and headers coerced from their text; raw bodies (e-mail) left to their handler. */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = makeAjv({ coerceTypes: false });
  const coercing = makeAjv({ coerceTypes: true });
  return ({ schema, httpPart, contentType }) => {
    if (httpPart !== 'body') return coercing.compile(schema as object);
    if (contentType !== undefined && contentType !== 'application/json') return () => true;
    return strict.compile(schema as object);
  };
}
