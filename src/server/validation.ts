/**
 * Schema compilers: request bodies are validated strictly (no type coercion, so a
 * string is never silently taken for a number), query strings and path parameters
 * with coercion (they arrive as text). A body of another media type than JSON (the raw
 * e-mail of `message/rfc822`) is bytes the route itself parses: its schema documents it
 * and validates nothing.
 *
 * Each route's validator is compiled on the route's first request, not when the server
 * starts: compiling the ~100 route schemas (and Ajv's meta-schema) took a large share of
 * the time before `org serve` could listen, and most routes of a given run are never hit.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives as the module namespace under NodeNext.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, removeAdditional: false, ...options });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv;
}

/**
 * A validator that compiles on its first call and then delegates. Fastify reads the
 * `errors` of the function the compiler returned, so they are copied after each call.
 */
export function compileOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  }) as ValidateFunction;
  validate.errors = null;
  return validate;
}

/** Ajv for every route: JSON bodies checked strictly, as sent; params, query and headers coerced from their text; raw bodies (e-mail) left to their handler. */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = makeAjv({ coerceTypes: false });
  const coercing = makeAjv({ coerceTypes: true });
  return ({ schema, httpPart, contentType }) => {
    if (httpPart !== 'body') return compileOnFirstUse(() => coercing.compile(schema as object));
    if (contentType !== undefined && contentType !== 'application/json') return () => true;
    return compileOnFirstUse(() => strict.compile(schema as object));
  };
}
