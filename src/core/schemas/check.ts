/**
 * Checking untrusted values against a record schema inside the domain (where no HTTP
 * validator runs): the schema is compiled once, defaults are filled in, members the
 * schema does not declare are dropped, and every problem is phrased for a person
 * (`content.tool must be a string`).
 */
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { FieldError } from './problem.js';

/** The outcome of a check: the value, completed and cleaned, or what is wrong with it. */
export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** A compiled check of one schema. */
export type Check<T> = (value: unknown) => Checked<T>;

/** What a validator reports about one problem (the fields both TypeBox and Ajv use). */
interface RawError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
}

/**
 * Compiles `schema` once and returns its check. `root` names the checked value in
 * messages (`content` gives `content.tags[0] must be a string`). The value passed in
 * may be completed in place (defaults); pass a copy when the caller still needs it as
 * it was.
 *
 * @example
 * const check = compileCheck(Type.Object({ tool: Type.String() }), 'content');
 * check({ tool: 5 }) // → { ok: false, errors: [{ path: 'content.tool', message: 'must be a string' }] }
 */
export function compileCheck<T extends TSchema>(schema: T, root: string): Check<Static<T>> {
  const validator = Compile(schema);
  return (input) => {
    const value = validator.Default(input);
    if (!validator.Check(value)) {
      return { ok: false, errors: (validator.Errors(value) as RawError[]).flatMap((error) => phrase(schema, root, error)) };
    }
    return { ok: true, value: validator.Clean(value) as Static<T> };
  };
}

/** One sentence for a list of errors: the first one, and how many more. */
export function describeErrors(errors: FieldError[]): string {
  const [first] = errors;
  if (!first) return 'is invalid';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `${first.path} ${first.message}${more}`;
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** `must be a string`, `must be a string or null`. */
function mustBe(type: unknown): string | undefined {
  const types = (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string');
  if (types.length === 0) return undefined;
  return `must be ${types.map((t) => ARTICLE[t] ?? t).join(' or ')}`;
}

/** `/tags/0` under `content` → `content.tags[0]`. */
function pathOf(root: string, pointer: string, member?: string): string {
  let path = root;
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (member !== undefined) segments.push(member);
  for (const segment of segments) path += /^\d+$/.test(segment) ? `[${segment}]` : path ? `.${segment}` : segment;
  return path;
}

/** The sub-schema a JSON pointer (`#/properties/tags/items`) names. */
function schemaAt(schema: unknown, pointer: string): Record<string, unknown> | undefined {
  let node: unknown = schema;
  for (const segment of pointer.replace(/^#/, '').split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined;
}

/** The field errors of one validator error (a `required` error names every missing member). */
function phrase(schema: TSchema, root: string, error: RawError): FieldError[] {
  if (error.keyword === 'required') {
    const missing = (error.params.requiredProperties as string[] | undefined) ?? [String(error.params.missingProperty)];
    const members = schemaAt(schema, error.schemaPath)?.properties as Record<string, { type?: unknown }> | undefined;
    return missing.map((member) => ({ path: pathOf(root, error.instancePath, member), message: mustBe(members?.[member]?.type) ?? 'is required' }));
  }
  return [phraseOne(root, error)];
}

function phraseOne(root: string, error: RawError): FieldError {
  switch (error.keyword) {
    case 'type':
      return { path: pathOf(root, error.instancePath), message: mustBe(error.params.type) ?? error.message };
    case 'enum':
      return { path: pathOf(root, error.instancePath), message: `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}` };
    case 'const':
      return { path: pathOf(root, error.instancePath), message: `must be ${JSON.stringify(error.params.allowedValue)}` };
    default:
      return { path: pathOf(root, error.instancePath), message: error.message };
  }
}
