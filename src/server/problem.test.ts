import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode, OrgError, alreadyExists, conflict, forbidden, gone, invalid, notFound, unauthorized } from '../core/errors.js';
import { problemBody, toProblem } from './problem.js';

const KEYS = ['code', 'detail', 'errors', 'status', 'title', 'type'];

describe('toProblem', () => {
  it.each(Object.entries(ERROR_STATUS) as [ErrorCode, number][])('maps OrgError %s to status %d with the problem shape', (code, status) => {
    const problem = toProblem(new OrgError(code, `something ${code}`));
    expect(problem.status).toBe(status);
    expect(problem.unexpected).toBe(false);
    expect(problem.body).toEqual({ type: `urn:org:problem:${code}`, title: expect.any(String), status, detail: `something ${code}`, code });
  });

  it('helpers carry their codes', () => {
    expect(toProblem(notFound('x')).status).toBe(404);
    expect(toProblem(conflict('x')).status).toBe(409);
    expect(toProblem(forbidden('x')).status).toBe(403);
    expect(toProblem(gone('x')).status).toBe(410);
    expect(toProblem(invalid('x')).status).toBe(400);
    expect(toProblem(alreadyExists('x', { slug: 'a' })).body).toMatchObject({ status: 409, code: 'already_exists', title: 'Already exists', slug: 'a' });
  });

  it('a foreign error with status 409 is the generic conflict, not already_exists', () => {
    expect(toProblem(Object.assign(new Error('taken'), { statusCode: 409 })).body.code).toBe('conflict');
  });

  it('401 carries WWW-Authenticate: Bearer; 429 carries Retry-After in whole seconds ≥ 1', () => {
    expect(toProblem(unauthorized('no')).headers['www-authenticate']).toMatch(/^Bearer\b/);
    expect(toProblem(new OrgError('rate_limited', 'slow down', { retryAfter: 12.2 })).headers['retry-after']).toBe('13');
    expect(toProblem(new OrgError('rate_limited', 'slow down', { retryAfter: 0 })).headers['retry-after']).toBe('1');
    expect(toProblem(notFound('x')).headers).toEqual({});
  });

  it('an OrgError with field errors and extra members keeps both, and the standard members win', () => {
    const error = new OrgError('timeout', 'too slow', { extra: { run_id: 'r1', status: 999, code: 'spoofed' }, errors: [{ path: 'body.x', message: 'bad' }] });
    const { body } = toProblem(error);
    expect(body).toMatchObject({ run_id: 'r1', status: 504, code: 'timeout', errors: [{ path: 'body.x', message: 'bad' }] });
  });

  it('maps an Ajv/Fastify validation error to 400 with errors[{path, message}]', () => {
    const error = Object.assign(new Error('body/name must be string'), {
      statusCode: 400,
      code: 'FST_ERR_VALIDATION',
      validationContext: 'body',
      validation: [
        { instancePath: '/name', keyword: 'type', message: 'must be string', params: { type: 'string' } },
        { instancePath: '', keyword: 'required', message: "must have required property 'template'", params: { missingProperty: 'template' } },
        { instancePath: '/role_id', keyword: 'pattern', message: 'must match pattern "^[a-z]+$"', params: {} },
        { instancePath: '/items/0', keyword: 'anyOf', message: 'must match a schema in anyOf', params: {} },
      ],
    });
    const problem = toProblem(error);
    expect(problem.status).toBe(400);
    expect(problem.body.code).toBe('invalid_request');
    expect(problem.body.errors).toEqual([
      { path: 'body.name', message: 'must be a string' },
      { path: 'body.template', message: 'is required' },
      { path: 'body.role_id', message: 'has an invalid format' },
      { path: 'body.items.0', message: 'does not match any allowed shape' },
    ]);
    expect(problem.body.detail).toBe('name must be a string; template is required; role_id has an invalid format; and 1 more problem(s)');
    const query = toProblem(
      Object.assign(new Error('x'), { validationContext: 'querystring', validation: [{ instancePath: '/limit', keyword: 'maximum', message: 'must be <= 500', params: { comparison: '<=', limit: 500 } }] }),
    );
    expect(query.body.errors).toEqual([{ path: 'querystring.limit', message: 'must be at most 500' }]);
    expect(query.body.detail).toBe('the query parameter limit must be at most 500');
  });

  it('speaks the user\'s words: a union of constants is "one of", a missing query parameter is named as such', () => {
    const role = toProblem(
      Object.assign(new Error('x'), {
        validationContext: 'body',
        validation: [
          { instancePath: '/role', keyword: 'const', message: 'must be equal to constant', params: { allowedValue: 'viewer' } },
          { instancePath: '/role', keyword: 'const', message: 'must be equal to constant', params: { allowedValue: 'operator' } },
          { instancePath: '/role', keyword: 'const', message: 'must be equal to constant', params: { allowedValue: 'owner' } },
          { instancePath: '/role', keyword: 'anyOf', message: 'must match a schema in anyOf', params: {} },
        ],
      }),
    );
    expect(role.body.detail).toBe('role must be one of viewer, operator, owner');
    expect(role.body.errors).toEqual([{ path: 'body.role', message: 'must be one of viewer, operator, owner' }]);
    const missing = toProblem(
      Object.assign(new Error('x'), {
        validationContext: 'querystring',
        validation: [{ instancePath: '', keyword: 'required', message: "must have required property 'structure_id'", params: { missingProperty: 'structure_id' } }],
      }),
    );
    expect(missing.body.detail).toBe('the query parameter structure_id is required');
    const slug = toProblem(
      Object.assign(new Error('x'), {
        validationContext: 'params',
        validation: [{ instancePath: '/slug', keyword: 'pattern', message: 'must match pattern', params: { pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' } }],
      }),
    );
    expect(slug.body.detail).toBe('slug in the path must be lowercase words joined by hyphens, e.g. plan-offsite');
  });

  it('maps a JSON SyntaxError from the body parser to 400 invalid_request', () => {
    const error = Object.assign(new SyntaxError('Unexpected token } in JSON at position 12'), { statusCode: 400 });
    const problem = toProblem(error);
    expect(problem.status).toBe(400);
    expect(problem.body).toMatchObject({ code: 'invalid_request', detail: 'the body is not valid JSON' });
    expect(problem.unexpected).toBe(false);
  });

  it('maps Fastify content errors: 413, 415, empty body', () => {
    expect(toProblem(Object.assign(new Error('Request body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })).body.code).toBe('payload_too_large');
    expect(toProblem(Object.assign(new Error('Unsupported Media Type: text/plain'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 })).status).toBe(415);
    expect(toProblem(Object.assign(new Error('empty'), { code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 })).status).toBe(400);
  });

  it('another 4xx framework error keeps a contract status (else 400); a message with a path is replaced', () => {
    const leaky = toProblem(Object.assign(new Error("ENOENT: open '/home/me/.org/x.json'"), { statusCode: 404 }));
    expect(leaky.status).toBe(404);
    expect(leaky.body.code).toBe('not_found');
    expect(leaky.body.detail).not.toContain('/home');
    const gone410 = toProblem(Object.assign(new Error('No longer here'), { statusCode: 410 }));
    expect(gone410.body).toMatchObject({ status: 410, code: 'gone', detail: 'No longer here' });
    // A status outside the code list of API.md §2 becomes invalid_request.
    const plain = toProblem(Object.assign(new Error('Method not allowed'), { statusCode: 405 }));
    expect(plain.body).toMatchObject({ status: 400, code: 'invalid_request', detail: 'Method not allowed' });
  });

  it.each([
    ['an Error', new Error("EACCES: permission denied, open '/srv/org/.org/keys.json'")],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a thrown string', '/etc/passwd'],
    ['undefined', undefined],
    ['null', null],
    ['a 5xx framework error', Object.assign(new Error('/internal/path failed'), { statusCode: 502 })],
  ])('maps %s to 500 internal without leaking anything', (_name, error) => {
    const problem = toProblem(error);
    expect(problem.status).toBe(500);
    expect(problem.unexpected).toBe(true);
    expect(problem.body).toEqual({ type: 'urn:org:problem:internal', title: expect.any(String), status: 500, detail: expect.any(String), code: 'internal' });
    const text = JSON.stringify(problem.body);
    expect(text).not.toMatch(/\/srv|\/etc|\/internal|EACCES|TypeError|reading|stack|at /);
  });
});

describe('toProblem of a backing service that is away', () => {
  it('a refused connection or PostgreSQL shutting down is a 503 with Retry-After, logged, not a 500', () => {
    for (const error of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
    ]) {
      const problem = toProblem(error);
      expect(problem.status).toBe(503);
      expect(problem.headers['retry-after']).toBe('1');
      expect(problem.unexpected).toBe(true);
      expect(problem.body.code).toBe('unavailable');
      expect(JSON.stringify(problem.body)).not.toMatch(/5432|127\.0\.0\.1|administrator/);
    }
    // A plain failure is still an internal error.
    expect(toProblem(Object.assign(new Error('x'), { code: '23505' })).status).toBe(500);
  });
});

describe('problemBody', () => {
  it('has exactly the RFC 9457 members of API.md §2, errors only when there are some', () => {
    expect(Object.keys(problemBody('not_found', 'x')).sort()).toEqual(KEYS.filter((key) => key !== 'errors'));
    expect(Object.keys(problemBody('invalid_request', 'x', [])).sort()).toEqual(KEYS.filter((key) => key !== 'errors'));
    expect(Object.keys(problemBody('invalid_request', 'x', [{ path: 'body', message: 'bad' }])).sort()).toEqual(KEYS);
  });
});
