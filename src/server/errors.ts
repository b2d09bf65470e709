/**
 * Everything leaves as problem+json: the one error handler and the not-found handler,
 * the errors Fastify's router raises before a route is found (bad percent-encoding, an
 * over-long path segment), requests Node's HTTP parser refuses before Fastify sees them,
 * and uploads announced with `Expect: 100-continue` that are over the body limit (413
 * before `100 Continue`, so the client never sends the body).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OrgError } from '../core/errors.js';
import { clientErrorProblem, rawProblemResponse, toProblem, problemBody, type ProblemResponse } from './problem.js';
import { problemInstance, REQUEST_ID_HEADER, requestIdOf } from './request-id.js';

/** Sends a problem on a Fastify reply, named by the request's id (`instance`). */
function sendProblem(reply: FastifyReply, problem: ProblemResponse): void {
  const body = { ...problem.body, instance: problemInstance(reply.request.id) };
  // Errors raised before any hook (a bad URL) have not had the id header set yet.
  void reply.code(problem.status).headers({ ...problem.headers, [REQUEST_ID_HEADER]: reply.request.id }).type('application/problem+json').send(body);
}

/** Installs the error and not-found handlers on a server. */
export function registerErrorHandling(server: FastifyInstance): void {
  server.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    if (problem.unexpected) request.log.error({ err: error }, 'unexpected error');
    sendProblem(reply, problem);
  });

  server.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    sendProblem(reply, { status: 404, body: problemBody('not_found', `no route ${request.method} ${path.slice(0, 200)}`), headers: {}, unexpected: false });
  });
}

/**
 * Requests that arrive on an open connection while the server closes get a 503 problem
 * (Fastify's own `return503OnClosing` answer is plain JSON, so it is turned off).
 */
export function registerClosing(server: FastifyInstance): void {
  let closing = false;
  server.addHook('preClose', async () => {
    closing = true;
  });
  server.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    void reply.header('connection', 'close');
    done(new OrgError('unavailable', 'the server is shutting down; retry in a moment'));
  });
}

/** Fastify's `frameworkErrors` option: router errors raised before any route or hook runs. */
export function frameworkErrors(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const problem = toProblem(error);
  if (problem.unexpected) request.log.error({ err: error }, 'unexpected framework error');
  sendProblem(reply, problem);
}

/**
 * Fastify's `clientErrorHandler` option (Node's `clientError` event): answers a request
 * the HTTP parser refused (or that timed out) with a problem and closes the connection,
 * both ways, whether or not the client ever closes its side.
 */
export function clientErrorHandler(this: { log?: { debug(object: object, message: string): void } } | undefined, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this?.log?.debug({ err: error }, 'client error');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // No request object exists yet: the answer gets an id of its own.
  const id = randomUUID();
  const problem = clientErrorProblem(error);
  // Written, then closed for good (as Node's own answer does): ending only our side would keep the
  // connection, its descriptor and its address's share, for as long as a client that never closes wants.
  socket.write(rawProblemResponse({ ...problem, body: { ...problem.body, instance: problemInstance(id) }, headers: { ...problem.headers, [REQUEST_ID_HEADER]: id } }));
  socket.destroy();
}

/**
 * Handles `Expect` on the Node server: `100-continue` with a declared body over
 * `bodyLimit` gets 413 at once (curl sends `Expect: 100-continue` for large uploads and
 * would otherwise be told to go on and then be cut off); everything else is continued
 * and handed to Fastify as an ordinary request. Other expectations are ignored (RFC 9110
 * lets a server process the request as if they were absent).
 */
export function handleExpectations(server: Server, bodyLimit: number): void {
  const dispatch = (request: IncomingMessage, response: ServerResponse, expected: boolean): void => {
    const declared = Number(request.headers['content-length']);
    if (expected && Number.isFinite(declared) && declared > bodyLimit) {
      const problem = toProblem(new OrgError('payload_too_large', `the request body (${declared} bytes) is larger than the server accepts (${bodyLimit} bytes)`));
      const id = requestIdOf(request);
      const body = JSON.stringify({ ...problem.body, instance: problemInstance(id) });
      response.shouldKeepAlive = false;
      response.writeHead(problem.status, {
        'content-type': 'application/problem+json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        [REQUEST_ID_HEADER]: id,
        connection: 'close',
      });
      response.end(body);
      return;
    }
    if (expected) response.writeContinue();
    server.emit('request', request, response);
  };
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => dispatch(request, response, true));
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => dispatch(request, response, false));
}
