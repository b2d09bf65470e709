/** The one error handler and the not-found handler: everything leaves as problem+json. */
import type { FastifyInstance } from 'fastify';
import { toProblem, problemBody } from './problem.js';

/** Installs the error and not-found handlers on a server. */
export function registerErrorHandling(server: FastifyInstance): void {
  server.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    if (problem.unexpected) request.log.error({ err: error }, 'unexpected error');
    void reply
      .code(problem.status)
      .headers(problem.headers)
      .type('application/problem+json')
      .send(problem.body);
  });

  server.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    void reply
      .code(404)
      .type('application/problem+json')
      .send(problemBody('not_found', `no route ${request.method} ${path.slice(0, 200)}`));
  });
}
